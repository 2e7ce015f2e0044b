/**
 * A store's synced vision rows (shared/sync/registry.ts; JSON columns arrive as JSON text) as the
 * cloud's rows. Sync checked the columns' types; what the JSON holds is the store's, so numbers
 * are read leniently and times normalised to ISO UTC (they are compared as text). A row whose
 * time is no time is dropped: it could never be placed in a period.
 */
import type { Fields } from '../../shared/sync/registry.ts';
import {
  CAMERA_STATUSES,
  CAMERA_TYPES,
  type CameraStatus,
  type CameraType,
  LANE_STATUSES,
  type LaneStatus,
  TRACK_OUTCOMES,
  type TrackOutcome,
  VERIFICATION_TRIGGERS,
  type VerificationTrigger,
  type VisionCameraRow,
  type VisionDetectionRow,
  type VisionLaneRow,
  type VisionModelMinuteRow,
  type VisionOccupancyRow,
  type VisionTrackRow,
  type VisionVerificationRow,
} from './tables.ts';

/** Where the rows came from: the push's scope, never a field of the row. */
export interface SyncedFrom {
  tenantId: string;
  locationId: string;
  /** When the cloud received them. */
  at: string;
}

export function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

export const finite = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const count = (value: unknown) => Math.max(0, Math.round(finite(value) ?? 0));
const str = (value: unknown) => (typeof value === 'string' ? value : null);
const object = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
/** JSON text of the column's value, whatever the store sent (text or already parsed). */
const jsonText = (value: unknown, fallback: unknown) => JSON.stringify(parseJson(value) ?? fallback);

export function iso(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}
const isoOrNull = (value: unknown) => iso(value) ?? null;
const oneOf = <T extends string>(values: readonly T[], value: unknown, fallback: T): T =>
  values.includes(value as T) ? (value as T) : fallback;

export function cameraRow(from: SyncedFrom, f: Fields): VisionCameraRow | undefined {
  const updatedAt = iso(f.updated_at);
  if (typeof f.id !== 'string' || !updatedAt) return undefined;
  return {
    tenant_id: from.tenantId,
    location_id: from.locationId,
    id: f.id,
    name: str(f.name) ?? f.id,
    type: oneOf<CameraType>(CAMERA_TYPES, f.type, 'drive_thru_lane'),
    enabled: f.enabled ? 1 : 0,
    status: oneOf<CameraStatus>(CAMERA_STATUSES, f.status, 'offline'),
    fps: finite(parseJson(f.fps)) ?? 0,
    last_detection: isoOrNull(f.last_detection),
    zones: jsonText(f.zones, []),
    settings: JSON.stringify(object(parseJson(f.settings))),
    model: str(f.model),
    updated_at: updatedAt,
    received_at: from.at,
  };
}

export function detectionRow(from: SyncedFrom, f: Fields): VisionDetectionRow | undefined {
  const detectedAt = iso(f.detected_at);
  if (typeof f.id !== 'string' || typeof f.camera_id !== 'string' || !detectedAt) return undefined;
  return {
    id: f.id,
    tenant_id: from.tenantId,
    location_id: from.locationId,
    camera_id: f.camera_id,
    track_id: str(f.track_id),
    name: str(f.name) ?? '',
    confidence: finite(parseJson(f.confidence)) ?? 0,
    box: JSON.stringify(array(parseJson(f.box)).map((n) => finite(n) ?? 0)),
    detected_at: detectedAt,
    snapshot: str(f.snapshot),
  };
}

export function trackRow(from: SyncedFrom, f: Fields): VisionTrackRow | undefined {
  const enteredAt = iso(f.entered_at);
  const leftAt = iso(f.left_at);
  if (typeof f.id !== 'string' || typeof f.camera_id !== 'string' || !enteredAt || !leftAt) return undefined;
  return {
    id: f.id,
    tenant_id: from.tenantId,
    location_id: from.locationId,
    camera_id: f.camera_id,
    entered_at: enteredAt,
    left_at: leftAt,
    outcome: oneOf<TrackOutcome>(TRACK_OUTCOMES, f.outcome, 'lost'),
    order_id: str(f.order_id),
    pulled_forward: f.pulled_forward ? 1 : 0,
    times: JSON.stringify(object(parseJson(f.times))),
    events: jsonText(f.events, []),
  };
}

export function verificationRow(from: SyncedFrom, f: Fields): VisionVerificationRow | undefined {
  const createdAt = iso(f.created_at);
  if (typeof f.id !== 'string' || typeof f.order_id !== 'string' || typeof f.camera_id !== 'string')
    return undefined;
  if (!createdAt) return undefined;
  return {
    id: f.id,
    tenant_id: from.tenantId,
    location_id: from.locationId,
    order_id: f.order_id,
    camera_id: f.camera_id,
    trigger: oneOf<VerificationTrigger>(VERIFICATION_TRIGGERS, f.trigger, 'order_ready'),
    verified: f.verified ? 1 : 0,
    detections: jsonText(f.detections, []),
    missing_items: jsonText(f.missing_items, []),
    extra_items: jsonText(f.extra_items, []),
    snapshot: str(f.snapshot),
    created_at: createdAt,
  };
}

export function minuteRow(from: SyncedFrom, f: Fields): VisionModelMinuteRow | undefined {
  const minute = iso(f.minute);
  if (typeof f.id !== 'string' || typeof f.camera_id !== 'string' || typeof f.model_id !== 'string')
    return undefined;
  if (!minute) return undefined;
  const m = object(parseJson(f.metrics));
  const inference = object(m.inference_ms);
  const capture = object(m.capture_to_result_ms);
  return {
    id: f.id,
    tenant_id: from.tenantId,
    location_id: from.locationId,
    camera_id: f.camera_id,
    model_id: f.model_id,
    model_version: str(f.model_version) ?? '',
    minute,
    frames_read: count(m.frames_read),
    frames_inferred: count(m.frames_inferred),
    frames_skipped: count(m.frames_skipped_by_motion),
    frames_dropped: count(m.frames_dropped),
    detections: count(m.detections),
    camera_fps: finite(m.camera_fps),
    detection_fps: finite(m.detection_fps),
    inference_p50: finite(inference.p50),
    inference_p99: finite(inference.p99),
    inference_mean: finite(inference.mean),
    capture_p50: finite(capture.p50),
    capture_p95: finite(capture.p95),
    capture_p99: finite(capture.p99),
  };
}

export function laneRow(from: SyncedFrom, f: Fields): VisionLaneRow | undefined {
  const updatedAt = iso(f.updated_at);
  if (typeof f.camera_id !== 'string' || !updatedAt) return undefined;
  return {
    tenant_id: from.tenantId,
    location_id: from.locationId,
    camera_id: f.camera_id,
    queue_length: count(f.queue_length),
    estimated_wait_seconds: count(f.estimated_wait_seconds),
    orders_per_hour: finite(parseJson(f.orders_per_hour)) ?? 0,
    status: oneOf<LaneStatus>(LANE_STATUSES, f.status, 'normal'),
    cars: jsonText(f.cars, []),
    counts: JSON.stringify(object(parseJson(f.counts))),
    updated_at: updatedAt,
    received_at: from.at,
  };
}

/** The store's occupancy row is keyed by its location; the push's scope says which store it is. */
export function occupancyRow(from: SyncedFrom, f: Fields): VisionOccupancyRow | undefined {
  const timestamp = iso(f.timestamp);
  if (!timestamp) return undefined;
  return {
    tenant_id: from.tenantId,
    location_id: from.locationId,
    timestamp,
    dining_room: JSON.stringify(object(parseJson(f.dining_room))),
    parking: JSON.stringify(object(parseJson(f.parking))),
    received_at: from.at,
  };
}
