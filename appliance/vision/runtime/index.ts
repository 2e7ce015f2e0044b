/**
 * The camera pipelines at work: one per enabled camera of the registry, what they see kept in the
 * synced vision tables, and the endpoints that answer from them (docs/vision.md). The
 * kiosk's feed reads `KioskVision` (cameras' status and the live lane) every second.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../../shared/clock.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import type { ApplianceServices } from '../../app.ts';
import type { ApplianceConfig } from '../../config.ts';
import type { ApplianceDatabase } from '../../db/index.ts';
import type { FleetVision } from '../../fleet/index.ts';
import { createEventPoller } from '../../kitchen/index.ts';
import { createModelStore } from '../models/index.ts';
import { resolveMenuMapping } from '../verify/index.ts';
import { createVisionRuntime, type VisionRuntime } from './runtime.ts';

export type { CameraState, CameraStatusEntry } from './camera-status.ts';
export { createVisionHistory, type VisionHistory } from './history.ts';
export type { LaneBucket } from './lane-history.ts';
export type { LiveDetection, LiveFrame } from './live.ts';
export { visionRuntimeApiRoutes, visionRuntimeRoutes } from './routes.ts';
export { createVisionRuntime, type VisionRuntime, VisionUnavailableError } from './runtime.ts';

/**
 * The runtime as the appliance runs it, from its configuration and services: its models from the
 * model store (versions the cloud sent under `<data dir>/models`, else the bundled ones), and the
 * fleet's `calibrate` and `models_sync` commands carried out by it.
 */
export function createVisionRuntimeFor(
  config: ApplianceConfig,
  deps: { db: ApplianceDatabase; clock: Clock; newId: IdGenerator; log: Logger },
  services: Pick<ApplianceServices, 'changes' | 'vision' | 'visionHistory' | 'orders' | 'location'>,
) {
  const { vision } = config;
  const models = createModelStore({
    dir: join(config.dataDir, 'models'),
    bundledDir: vision.bundledModelsDir,
    cloudUrl: config.cloudUrl,
    applianceKey: config.sync.credential,
    log: deps.log,
    clock: deps.clock,
  });
  const mapping = vision.menuMappingFile
    ? (JSON.parse(readFileSync(vision.menuMappingFile, 'utf8')) as unknown)
    : {};
  const runtime = createVisionRuntime(
    {
      db: deps.db,
      changes: services.changes,
      registry: services.vision,
      history: services.visionHistory,
      // Orders ready and paid, for verification: a quarter second late is soon enough, and the
      // appliance need not read its events table forty times a second while the store is quiet.
      events: createEventPoller(deps.db, 250),
      orders: services.orders,
      location: services.location,
      clock: deps.clock,
      newId: deps.newId,
      locationId: config.locationId,
      log: deps.log.child({ module: 'vision' }),
    },
    {
      resolveModel: models.resolve,
      ffmpegPath: vision.ffmpegPath,
      snapshotsDir: vision.snapshotsDir,
      snapshotBudgetBytes: vision.snapshotBudgetBytes,
      diningCapacity: vision.diningCapacity,
      menuMapping: resolveMenuMapping(mapping),
    },
  );
  const fleet: FleetVision = {
    calibrate: (cameraId) => runtime.calibrate(cameraId),
    syncModels: async (payload, options) => ({
      ...(await models.syncModels(payload, { ...options, apply: runtime.swapModel })),
    }),
  };
  return { ...runtime, models, fleet };
}

export type ApplianceVision = ReturnType<typeof createVisionRuntimeFor>;

/** What the kiosk's live feed asks of the runtime each second: plain calls, no database scan. */
export type KioskVision = Pick<VisionRuntime, 'cameraStatuses' | 'laneStatus'>;
