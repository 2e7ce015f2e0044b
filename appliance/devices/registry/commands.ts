/**
 * Commands passed on to a store device (a restart from the cloud or the store's screens):
 * published by the broker itself on the device's `cmd` topic at QoS 1, answered by the device on
 * its `ack` topic with the same command id. A device with a persistent session that is away gets
 * the command when it comes back, but the wait here is bounded: the cloud's command then fails as
 * unanswered, and the message carries its deadline so a device back after it can tell the
 * command is stale.
 */
import type { Aedes } from 'aedes';
import type { Logger } from 'pino';
import { deviceTopic } from '../../../shared/mqtt/topics.ts';
import type { Device } from './service.ts';

/** What a device sends on its ack topic. `received` is progress; the rest end the wait. */
export interface DeviceAck {
  command_id: string;
  state?: 'received' | 'succeeded' | 'failed';
  reason?: string;
}

export interface DeviceCommand {
  command_id: string;
  kind: 'restart';
  expires_at: string;
}

/** Why a command did not succeed, for callers that answer differently to each. */
export type DeviceCommandFailure = 'unknown_device' | 'failed' | 'unanswered' | 'cancelled' | 'not_sent';

interface Waiting {
  deviceId: string;
  settle(
    outcome: { ok: true; answer: DeviceAck } | { ok: false; reason: string; failure: DeviceCommandFailure },
  ): void;
}

export interface DeviceCommandDeps {
  aedes: Aedes;
  prefix: string;
  locationId: string;
  device: (id: string) => Device | undefined;
  timeoutMs: number;
  log: Logger;
}

export class DeviceCommandError extends Error {
  override name = 'DeviceCommandError';

  constructor(
    message: string,
    readonly failure: DeviceCommandFailure,
  ) {
    super(message);
  }
}

export function createDeviceCommands(deps: DeviceCommandDeps) {
  const waiting = new Map<string, Waiting>();

  function publish(topic: string, command: DeviceCommand) {
    return new Promise<void>((resolve, reject) =>
      deps.aedes.publish(
        {
          cmd: 'publish',
          topic,
          payload: Buffer.from(JSON.stringify(command)),
          qos: 1,
          retain: false,
          dup: false,
        },
        (error) => (error ? reject(error) : resolve()),
      ),
    );
  }

  return {
    /** Sends the command and resolves with the device's answer; rejects when it fails or is silent. */
    async send(deviceId: string, command: DeviceCommand, signal?: AbortSignal): Promise<DeviceAck> {
      const device = deps.device(deviceId);
      if (!device)
        throw new DeviceCommandError(
          `device ${deviceId} has never connected to this store's broker`,
          'unknown_device',
        );
      const topic = deviceTopic({
        prefix: deps.prefix,
        deviceType: device.device_type,
        locationId: deps.locationId,
        deviceId,
        channel: 'cmd',
      });
      const offline = device.status === 'offline';
      const answered = new Promise<DeviceAck>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const onAbort = () => settle({ ok: false, reason: 'cancelled', failure: 'cancelled' });
        const settle: Waiting['settle'] = (outcome) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          waiting.delete(command.command_id);
          if (outcome.ok) resolve(outcome.answer);
          else reject(new DeviceCommandError(outcome.reason, outcome.failure));
        };
        timer = setTimeout(() => {
          const reason = offline
            ? `device ${deviceId} is offline and did not answer in time; it gets the command if it reconnects before ${command.expires_at}`
            : `device ${deviceId} did not answer in time`;
          settle({ ok: false, reason, failure: 'unanswered' });
        }, deps.timeoutMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.set(command.command_id, { deviceId, settle });
      });
      // It may settle (a cancel, a failed publish) before it is awaited below: not unhandled.
      answered.catch(() => {});
      try {
        await publish(topic, command);
      } catch (error) {
        waiting
          .get(command.command_id)
          ?.settle({ ok: false, reason: `not sent: ${(error as Error).message}`, failure: 'not_sent' });
      }
      deps.log.info(
        { deviceId, commandId: command.command_id, kind: command.kind, offline },
        'device command sent',
      );
      return answered;
    },

    /** A message on a device's ack topic (the registry's broker listener hands it over). */
    onAck(deviceId: string, payload: unknown) {
      const ack = payload as Partial<DeviceAck> | undefined;
      if (typeof ack?.command_id !== 'string') return;
      const entry = waiting.get(ack.command_id);
      // Only the device the command went to may answer it.
      if (!entry || entry.deviceId !== deviceId) {
        deps.log.debug({ deviceId, commandId: ack.command_id }, 'device answer for no command waiting');
        return;
      }
      if (ack.state === 'received') return;
      if (ack.state === 'failed')
        entry.settle({
          ok: false,
          reason: `the device failed it: ${String(ack.reason ?? 'no reason given').slice(0, 300)}`,
          failure: 'failed',
        });
      else entry.settle({ ok: true, answer: { command_id: ack.command_id, state: 'succeeded' } });
    },

    /** Ends every wait (the appliance is stopping). */
    close() {
      for (const entry of [...waiting.values()])
        entry.settle({ ok: false, reason: 'the appliance stopped', failure: 'cancelled' });
    },
  };
}

export type DeviceCommands = ReturnType<typeof createDeviceCommands>;
