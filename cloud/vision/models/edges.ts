/**
 * How the model store reaches an edge appliance: through the device registry's command queue (the
 * fleet link carries it), using only the registry's and sync's public service functions.
 */
import { AppError } from '../../../shared/http/errors.ts';
import type { DeviceService } from '../../devices/index.ts';
import type { SyncService } from '../../sync/index.ts';

export interface EdgeCommand {
  command_id: string;
  state: string;
  payload: Record<string, unknown>;
  result: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
}

export type EdgeLookup = { managed: true; state: string } | { managed: false; why: string } | undefined;

export interface EdgeFleet {
  /** The edge as the registry knows it; undefined when the tenant has no such appliance at all. */
  edge(tenantId: string, edgeId: string): Promise<EdgeLookup>;
  queueSync(
    tenantId: string,
    edgeId: string,
    payload: Record<string, unknown>,
    ttlSeconds: number,
  ): Promise<EdgeCommand>;
  /** One of the edge's recent model syncs. */
  sync(tenantId: string, edgeId: string, commandId: string): Promise<EdgeCommand | undefined>;
}

/** Model syncs looked through for one by id (newest first). */
const RECENT_SYNCS = 200;

export function createEdgeFleet(services: { devices: DeviceService; sync: SyncService }): EdgeFleet {
  return {
    async edge(tenantId, edgeId) {
      const device = await services.devices.getDevice(tenantId, edgeId).catch((error: unknown) => {
        if (error instanceof AppError && error.status === 404) return undefined;
        throw error;
      });
      if (device?.device_type === 'appliance') return { managed: true, state: device.state };
      if (device) return { managed: false, why: `it is a ${device.device_type} device` };
      const appliances = await services.sync.listAppliances(tenantId);
      if (appliances.some((appliance) => appliance.id === edgeId))
        return { managed: false, why: 'it syncs but was never registered as a device' };
      return undefined;
    },

    queueSync: (tenantId, edgeId, payload, ttlSeconds) =>
      services.devices.queueCommand(tenantId, edgeId, { kind: 'models_sync', payload, ttlSeconds }),

    async sync(tenantId, edgeId, commandId) {
      const recent = await services.devices.commandsFor(tenantId, {
        deviceId: edgeId,
        kind: 'models_sync',
        limit: RECENT_SYNCS,
      });
      return recent.find((command) => command.command_id === commandId);
    },
  };
}
