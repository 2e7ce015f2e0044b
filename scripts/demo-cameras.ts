/**
 * The demo store's cameras for `npm start`: a drive-thru lane and a pickup-window food camera,
 * each playing a clip the synthetic world renders on first start (kept under the data dir, so
 * later starts reuse it). They are registered in the appliance's camera registry like real ones,
 * so the pipeline, the local API and the cloud see them as any store's cameras. DEMO_CAMERAS=off
 * leaves them out.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { VisionRegistry } from '../appliance/vision/registry/index.ts';
import { DEMO_LANE, demoLaneClip, demoLaneZones, demoTrayClip } from './vision/world/demo-clips.ts';

/** The order the pickup camera's trays hold: ring it up as a drive-thru order to see it verified. */
export const DEMO_TRAY_ORDER = [
  { item: 'Cheeseburger', quantity: 1 },
  { item: 'Fries', quantity: 1 },
  { item: 'Soda', quantity: 1 },
] as const;

const LANE_SECONDS = 120;

/**
 * Works on a running appliance's registry (its pipelines start as the cameras are enabled) as well
 * as on one not started yet (they start with it).
 */
export async function startDemoCameras(vision: VisionRegistry, dataDir: string, log: Logger) {
  const clips = join(dataDir, 'demo-clips');
  const started = Date.now();
  const [lane, tray] = await Promise.all([
    demoLaneClip(clips, LANE_SECONDS),
    demoTrayClip(clips, DEMO_TRAY_ORDER, { trays: 6 }),
  ]);
  // Registered disabled, set up, then enabled: the pipeline starts once, with everything in place.
  if (!vision.camera('demo-lane')) {
    vision.register({
      id: 'demo-lane',
      name: 'Drive-thru lane',
      type: 'drive_thru_lane',
      source_url: `file://${lane}`,
      enabled: false,
    });
    vision.putCameraSettings('demo-lane', {
      inference_resolution: `${DEMO_LANE.width}x${DEMO_LANE.height}`,
      inference_fps: DEMO_LANE.fps,
    });
    vision.putZones('demo-lane', demoLaneZones());
    vision.update('demo-lane', { enabled: true });
  }
  if (!vision.camera('demo-pass')) {
    vision.register({
      id: 'demo-pass',
      name: 'Pickup window',
      type: 'food_recognition',
      source_url: `file://${tray}`,
      enabled: false,
    });
    vision.putCameraSettings('demo-pass', { inference_resolution: '640x480', inference_fps: 10 });
    vision.update('demo-pass', { enabled: true });
  }
  log.info({ ms: Date.now() - started, clips }, 'demo cameras playing');
}
