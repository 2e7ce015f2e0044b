import type { Logger } from 'pino';
import type { EffectiveSettings } from '../settings/index.ts';
import type { VisionCamera } from './camera.ts';

/**
 * Told that a camera's record (source, type, zones, enabled) or its effective settings changed,
 * once per change and only for the cameras it touches; both undefined once the camera is removed.
 */
export type CameraChangeListener = (
  cameraId: string,
  settings: EffectiveSettings | undefined,
  camera: VisionCamera | undefined,
) => void;

/** What a pipeline runs by: the camera without its live figures, and its effective settings. */
function fingerprint(camera: VisionCamera | undefined, settings: EffectiveSettings | undefined) {
  if (!camera) return undefined;
  const { status, fps, lastDetection, statusReportedAt, createdAt, updatedAt, ...config } = camera;
  return JSON.stringify([config, settings]);
}

/**
 * The pipeline runtime's change hook. It remembers what each camera's listeners last heard, so a
 * write that changes nothing for a camera (the same settings again, an edge setting another camera
 * already had) does not disturb its pipeline. A listener that throws is logged and cannot stop the
 * others.
 */
export function createChangeHook(log: Logger | undefined) {
  const listeners = new Set<CameraChangeListener>();
  const heard = new Map<string, string>();

  function tell(cameraId: string, settings: EffectiveSettings | undefined, camera: VisionCamera | undefined) {
    for (const listener of listeners) {
      try {
        listener(cameraId, settings, camera);
      } catch (error) {
        log?.error({ err: error, cameraId }, 'a vision change listener failed');
      }
    }
  }

  return {
    listen(listener: CameraChangeListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** What a camera is at start, told to no one. */
    seed(cameraId: string, camera: VisionCamera, settings: EffectiveSettings): void {
      heard.set(cameraId, fingerprint(camera, settings)!);
    },
    /** A camera as it is now (undefined: removed), told when it differs from what was last heard. */
    offer(cameraId: string, camera: VisionCamera | undefined, settings: EffectiveSettings | undefined): void {
      const print = fingerprint(camera, settings);
      if (print === heard.get(cameraId)) return;
      if (print === undefined) heard.delete(cameraId);
      else heard.set(cameraId, print);
      tell(cameraId, settings, camera);
    },
  };
}
