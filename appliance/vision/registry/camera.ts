import type { Camera, CameraStatus, CameraType, Zone } from './schemas.ts';

/** A camera as its pipeline needs it: the real source URL, zones in its inference pixels, live figures. */
export interface VisionCamera {
  id: string;
  name: string;
  type: CameraType;
  sourceUrl: string;
  enabled: boolean;
  zones: Zone[];
  status: CameraStatus;
  fps: number;
  lastDetection: string | null;
  statusReportedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A source URL fit to show: its password masked. */
export function maskedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** A camera as the API shows it. */
export const cameraRecord = (camera: VisionCamera): Camera => ({
  id: camera.id,
  name: camera.name,
  type: camera.type,
  status: camera.status,
  fps: camera.fps,
  last_detection: camera.lastDetection,
  enabled: camera.enabled,
  source_url: maskedUrl(camera.sourceUrl),
  zones: camera.zones,
  status_reported_at: camera.statusReportedAt,
  created_at: camera.createdAt,
  updated_at: camera.updatedAt,
});
