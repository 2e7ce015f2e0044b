import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { FleetAck, FleetCommand, FleetStatus } from '../../shared/devices/fleet-protocol.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { CloudFleetLink } from '../fleet/index.ts';
import type { CloudServices } from '../services.ts';

type CommandState = 'acknowledged' | 'succeeded' | 'failed' | 'expired';

/** The appliance's answer as the command's state in the registry. */
const STATE_OF_ACK: Record<FleetAck['state'], CommandState> = {
  received: 'acknowledged',
  progress: 'acknowledged',
  succeeded: 'succeeded',
  failed: 'failed',
  rejected: 'failed',
  expired: 'expired',
};

export interface CommandDispatchDeps {
  services: Pick<CloudServices, 'devices' | 'sync'>;
  link: CloudFleetLink;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
}

/**
 * Carries the device registry's commands over the fleet link: a command for a store's device goes
 * to the appliances of its store (which act on it, or pass it on to the device), is marked sent
 * once the broker has it, and takes the states the appliance reports. An appliance coming back
 * online gets again what was sent and never answered (it acts on an id once). A manager's sync
 * trigger travels the same way as `sync_now`, beside the appliance's own wait request.
 */
export function createCommandDispatch(deps: CommandDispatchDeps) {
  const { services, link, log } = deps;

  async function appliancesOf(tenantId: string, locationId: string) {
    const all = await services.sync.listAppliances(tenantId, locationId);
    return all.filter((appliance) => appliance.status === 'active').map((appliance) => appliance.id);
  }

  type Due = Awaited<ReturnType<CloudServices['devices']['dueCommands']>>[number];
  /** The registry's command as the appliance receives it; a command for the appliance itself names no device. */
  const fleetCommand = (command: {
    id: string;
    kind: FleetCommand['kind'];
    device_id: string;
    device_type: string;
    payload: Record<string, unknown>;
    created_at: string;
    expires_at: string;
  }): FleetCommand => ({
    id: command.id,
    kind: command.kind,
    ...(command.device_type === 'appliance' ? {} : { device_id: command.device_id }),
    payload: command.payload,
    issued_at: command.created_at,
    expires_at: command.expires_at,
  });

  async function dispatch(row: Due) {
    const appliances = await appliancesOf(row.tenant_id, row.location_id);
    if (appliances.length === 0) return; // it waits until the store has an appliance (or expires)
    for (const applianceId of appliances) {
      await link.send(
        row.tenant_id,
        applianceId,
        fleetCommand({ ...row, payload: JSON.parse(row.payload) as Record<string, unknown> }),
      );
    }
    await services.devices.updateCommand(row.tenant_id, row.id, { state: 'sent' });
  }

  /**
   * An appliance enrolled through MDM is a device of the registry under the same id: its status
   * (and its will, when it dies without a word) is its presence, its version its firmware. One
   * provisioned for sync alone has no registry row, which is no error.
   */
  async function presenceOfAppliance(tenantId: string, applianceId: string, status: FleetStatus) {
    await services.devices
      .markPresence(
        tenantId,
        applianceId,
        status.online ? 'online' : 'offline',
        Number.isNaN(Date.parse(status.at)) ? deps.clock.now() : new Date(status.at),
        status.version,
      )
      .catch((error: unknown) => {
        if ((error as { code?: string }).code !== 'DEVICE_NOT_FOUND') throw error;
      });
  }

  return {
    /** Sends what is due; called on a timer and when something was queued. */
    async tick() {
      for (const row of await services.devices.dueCommands(100)) {
        await dispatch(row).catch((error: unknown) =>
          log.warn({ err: error, commandId: row.id }, 'fleet command not sent; it stays queued'),
        );
      }
    },

    async onAck(tenantId: string, applianceId: string, ack: FleetAck) {
      const result = {
        ...(ack.result ?? {}),
        ...(ack.progress !== undefined ? { progress: ack.progress } : {}),
        ...(ack.reason ? { reason: ack.reason } : {}),
        appliance_id: applianceId,
      };
      const moved = await services.devices.updateCommand(tenantId, ack.command_id, {
        state: STATE_OF_ACK[ack.state],
        result,
      });
      if (!moved)
        log.debug({ commandId: ack.command_id, state: ack.state }, 'fleet acknowledgement changed nothing');
    },

    async onStatus(tenantId: string, applianceId: string, status: FleetStatus) {
      log.info({ tenantId, applianceId, online: status.online, version: status.version }, 'appliance status');
      await presenceOfAppliance(tenantId, applianceId, status);
      if (!status.online) return;
      const appliance = (await services.sync.listAppliances(tenantId)).find((a) => a.id === applianceId);
      if (!appliance) return;
      const unanswered = await services.devices.commandsFor(tenantId, {
        locationId: appliance.location_id,
        states: ['sent'],
        limit: 100,
      });
      for (const command of unanswered) {
        const device = await services.devices.getDevice(tenantId, command.device_id);
        await link
          .send(
            tenantId,
            applianceId,
            fleetCommand({ ...command, id: command.command_id, device_type: device.device_type }),
          )
          .catch((error: unknown) =>
            log.warn({ err: error, commandId: command.command_id }, 'fleet command resend failed'),
          );
      }
    },

    /** A sync trigger made on this replica, as a `sync_now` command to the store's appliances. */
    async onSyncTrigger(tenantId: string, locationId: string, priority: string) {
      const now = deps.clock.now();
      for (const applianceId of await appliancesOf(tenantId, locationId)) {
        await link.send(tenantId, applianceId, {
          id: deps.newId(),
          kind: 'sync_now',
          payload: { priority },
          issued_at: now.toISOString(),
          expires_at: new Date(now.getTime() + 15 * 60_000).toISOString(),
        });
      }
    },
  };
}

export type CommandDispatch = ReturnType<typeof createCommandDispatch>;
