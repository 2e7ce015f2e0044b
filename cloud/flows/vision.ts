/**
 * Vision spans three domains: the stores' synced vision rows reach the vision module in the
 * transaction of the push that brought them, and the changes vision asks of a store travel as
 * commands of the device registry to the store's appliance (a registry device of type
 * `appliance`, enrolled through MDM under its sync id), which the fleet link then carries.
 */
import { AppError } from '../../shared/http/errors.ts';
import type { Fields, SyncTableName } from '../../shared/sync/registry.ts';
import type { Db } from '../db/index.ts';
import type { DeviceService } from '../devices/index.ts';
import type { SyncService } from '../sync/index.ts';
import type { QueuedCommand, VisionEdges, VisionService } from '../vision/index.ts';

type Recorder = (trx: Db, tenantId: string, locationId: string, rows: Fields[]) => Promise<void>;

export function linkVision(sync: SyncService, vision: VisionService) {
  const observers: Array<[SyncTableName, Recorder]> = [
    ['vision_camera_states', vision.recordCameras],
    ['vision_detections', vision.recordDetections],
    ['vision_tracks', vision.recordTracks],
    ['vision_verifications', vision.recordVerifications],
    ['vision_model_minutes', vision.recordModelMinutes],
    ['vision_lane_states', vision.recordLanes],
    ['vision_occupancy', vision.recordOccupancy],
  ];
  for (const [table, record] of observers)
    sync.observe(table, (trx, scope, rows) =>
      record(
        trx,
        scope.tenantId,
        scope.locationId,
        rows.map(({ fields }) => fields),
      ),
    );
}

/** States in which an appliance holds its certificate and so listens on the fleet link. */
const ENROLLED = new Set(['active', 'online', 'offline']);
/** Settings commands looked through for one of them: far more than a store's changes in a day (their lifetime). */
const COMMANDS_SCANNED = 200;

const notFound = (error: unknown) => {
  if (error instanceof AppError && error.status === 404) return undefined;
  throw error;
};

export function visionEdges(devices: DeviceService, sync: SyncService): VisionEdges {
  const toQueued = (command: QueuedCommand): QueuedCommand => ({
    command_id: command.command_id,
    state: command.state,
    expires_at: command.expires_at,
    updated_at: command.updated_at,
  });

  return {
    /**
     * The store's enrolled appliance device; one that also syncs for the store comes first (the
     * fleet link carries a command for it to every appliance of the store either way).
     */
    async managedAt(tenantId, locationId) {
      const page = await devices.listDevices(
        tenantId,
        { locationId, deviceType: 'appliance' },
        { limit: 100 },
      );
      const enrolled = page.items.filter((device) => ENROLLED.has(device.state));
      const syncing = new Set((await sync.listAppliances(tenantId, locationId)).map((a) => a.id));
      return (enrolled.find((device) => syncing.has(device.id)) ?? enrolled[0])?.id;
    },

    async find(tenantId, edgeId) {
      const device = await devices.getDevice(tenantId, edgeId).catch(notFound);
      if (device?.device_type === 'appliance' && device.state !== 'revoked')
        return { id: device.id, location_id: device.location_id, managed: ENROLLED.has(device.state) };
      const appliance = (await sync.listAppliances(tenantId)).find(
        (a) => a.id === edgeId && a.status === 'active',
      );
      return appliance && { id: appliance.id, location_id: appliance.location_id, managed: false };
    },

    async queue(tenantId, deviceId, command) {
      const queued = await devices.queueCommand(tenantId, deviceId, {
        kind: command.kind,
        payload: command.payload,
      });
      return toQueued(queued);
    },

    async settingsCommand(tenantId, deviceId, commandId) {
      const filter = { deviceId, kind: 'settings' as const, limit: COMMANDS_SCANNED };
      const found = (await devices.commandsFor(tenantId, filter)).find(
        (command) => command.command_id === commandId,
      );
      return found && toQueued(found);
    },
  };
}
