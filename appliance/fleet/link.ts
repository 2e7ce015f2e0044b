import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import {
  type AckState,
  type CommandKind,
  FINAL_ACK_STATES,
  type FleetAck,
  type FleetCommand,
  INTERRUPTED_REASON,
  readCommand,
} from '../../shared/devices/fleet-protocol.ts';
import { fleetTopic } from '../../shared/mqtt/topics.ts';
import type { ActionBoard } from '../actions/index.ts';
import type { CommandJournal } from './journal.ts';

export interface CommandContext {
  /** Reports progress of long work (0 to 1) to the cloud. */
  progress(fraction: number): void;
  /** Aborted when the cloud cancels the command (an update). */
  signal: AbortSignal;
}

export type CommandHandler = (
  command: FleetCommand,
  context: CommandContext,
) => Promise<Record<string, unknown> | undefined>;

export interface ApplianceFleetLinkOptions {
  /** The cloud's broker: mqtt:// in development, mqtts:// with this appliance's certificate otherwise. */
  url: string;
  tls?: { key: string | Buffer; cert: string | Buffer; ca: string | Buffer } | undefined;
  /** Where no certificate is used (the embedded broker): the appliance id and its credential. */
  username?: string | undefined;
  password?: string | undefined;
  tenantId: string;
  applianceId: string;
  prefix?: string;
  version: string;
  journal: CommandJournal;
  handlers: Partial<Record<CommandKind, CommandHandler>>;
  clock: Clock;
  log: Logger;
  actions?: ActionBoard | undefined;
  /** Each time the link is up again and listening (the first time too): catch up on what was missed. */
  onConnected?: (() => void) | undefined;
}

/** What the store's screens call the commands that take a while. */
const ACTION_LABELS: Partial<Record<CommandKind, string>> = {
  update: 'Installing a software update',
  models_sync: 'Downloading camera models',
  calibrate: 'Calibrating a camera',
  sync_now: 'Syncing with the cloud (asked by the cloud)',
  settings: 'Applying settings from the cloud',
};

/**
 * The appliance's end of the fleet link. Its session is persistent (clean: false, QoS 1), so
 * commands sent while it was away arrive when it is back; the journal makes each command id act
 * once however often it arrives, and a repeat is answered with how it ended. Its status is retained
 * by the broker, with `online: false` as its will, so the cloud sees it drop off without waiting.
 */
export function createApplianceFleetLink(options: ApplianceFleetLinkOptions) {
  const { journal, clock, log } = options;
  const topic = (channel: 'cmd' | 'ack' | 'status') =>
    fleetTopic(options.tenantId, options.applianceId, channel, options.prefix);
  const running = new Map<string, AbortController>();
  let client: MqttClient | undefined;

  const now = () => clock.now().toISOString();
  function ack(commandId: string, state: AckState, extra: Partial<FleetAck> = {}) {
    const message: FleetAck = { command_id: commandId, state, at: now(), ...extra };
    client?.publish(topic('ack'), JSON.stringify(message), { qos: 1 });
  }

  function finish(
    command: FleetCommand,
    state: AckState,
    extra: { result?: Record<string, unknown>; reason?: string } = {},
  ) {
    journal.finish(command.id, state, now(), extra.result, extra.reason);
    ack(command.id, state, extra);
  }

  async function run(command: FleetCommand, handler: CommandHandler) {
    const controller = new AbortController();
    running.set(command.id, controller);
    const label = ACTION_LABELS[command.kind];
    if (label) options.actions?.start(command.id, command.kind, label);
    try {
      const result = await handler(command, {
        progress: (fraction) => {
          options.actions?.progress(command.id, fraction);
          ack(command.id, 'progress', { progress: Math.min(1, Math.max(0, fraction)) });
        },
        signal: controller.signal,
      });
      options.actions?.finish(command.id, 'succeeded');
      finish(command, 'succeeded', result ? { result } : {});
    } catch (error) {
      const reason = (error as Error).message.slice(0, 500);
      options.actions?.finish(command.id, 'failed', reason);
      finish(command, 'failed', { reason });
    } finally {
      running.delete(command.id);
    }
  }

  function receive(payload: Buffer) {
    const command = readCommand(payload);
    if (!command) {
      log.warn({ size: payload.length }, 'fleet command refused: not a command');
      return;
    }
    const seen = journal.find(command.id);
    if (seen) {
      // Delivered again (a reconnect, a resend): say again how it stands, act on nothing.
      if (FINAL_ACK_STATES.has(seen.state))
        ack(command.id, seen.state, seen.reason ? { reason: seen.reason } : {});
      return;
    }
    if (Date.parse(command.expires_at) <= clock.now().getTime()) {
      journal.take(command, 'expired', now());
      return finish(command, 'expired', { reason: 'the command arrived after its deadline' });
    }
    if (command.kind === 'cancel_update') return cancel(command);
    const handler = options.handlers[command.kind];
    journal.take(command, 'received', now());
    if (!handler)
      return finish(command, 'rejected', { reason: `this appliance does not do ${command.kind}` });
    ack(command.id, 'received');
    log.info({ commandId: command.id, kind: command.kind }, 'fleet command received');
    void run(command, handler);
  }

  function cancel(command: FleetCommand) {
    journal.take(command, 'received', now());
    const target = String(command.payload.command_id ?? '');
    const controller = running.get(target);
    if (!controller) return finish(command, 'failed', { reason: 'no such command is running' });
    controller.abort();
    finish(command, 'succeeded', { result: { cancelled: target } });
  }

  /**
   * Commands the last run took on and never finished: they cannot be resumed, so they failed. The
   * cloud hears it once the link is up (it would otherwise wait on a command nobody runs, and a
   * rollout would never send the update again); a repeat of the ack changes nothing there.
   */
  const interrupted: string[] = [];
  function settleInterrupted() {
    for (const entry of journal.unfinished()) {
      journal.finish(entry.id, 'failed', now(), undefined, INTERRUPTED_REASON);
      interrupted.push(entry.id);
    }
  }

  return {
    start(): Promise<void> {
      settleInterrupted();
      const status = (online: boolean) => JSON.stringify({ online, at: now(), version: options.version });
      const clientOptions: IClientOptions = {
        clientId: options.applianceId,
        clean: false,
        reconnectPeriod: 1000,
        connectTimeout: 10_000,
        will: { topic: topic('status'), payload: Buffer.from(status(false)), qos: 1, retain: true },
        ...(options.tls ? { key: options.tls.key, cert: options.tls.cert, ca: options.tls.ca } : {}),
        ...(options.username ? { username: options.username, password: options.password } : {}),
      };
      client = mqtt.connect(options.url, clientOptions);
      client.on('message', (_topic, payload) => receive(payload));
      client.on('error', (error) => log.warn({ err: error }, 'fleet link error'));
      // Listening first, then saying it is online: the cloud answers `online` by sending again what
      // was never acknowledged, and a broker drops what arrives for a topic nobody listens to yet.
      const ready = new Promise<void>((resolve) => {
        client!.on('connect', () => {
          client!
            .subscribeAsync(topic('cmd'), { qos: 1 })
            .then(() => client!.publishAsync(topic('status'), status(true), { qos: 1, retain: true }))
            .then(() => {
              for (const id of interrupted.splice(0)) ack(id, 'failed', { reason: INTERRUPTED_REASON });
              resolve();
              options.onConnected?.();
            })
            .catch((error: unknown) => log.warn({ err: error }, 'fleet link could not listen for commands'));
        });
      });
      return ready;
    },

    connected: () => client?.connected === true,

    /**
     * The certificate to show from now on (a renewal): the connection up keeps going; the next
     * one, after a drop, shows the new pair (the cloud revokes the old one as superseded).
     */
    renewTls(tls: { key: string | Buffer; cert: string | Buffer; ca: string | Buffer }) {
      options.tls = tls;
      if (client) Object.assign(client.options, { key: tls.key, cert: tls.cert, ca: tls.ca });
    },

    async close() {
      for (const controller of running.values()) controller.abort();
      if (!client) return;
      const closing = client;
      // Away from the broker there is nobody to tell and nothing in flight to wait for: a
      // graceful end would wait for a connection that may never come back.
      if (!closing.connected) {
        await closing.endAsync(true);
        return;
      }
      closing.publish(
        topic('status'),
        JSON.stringify({ online: false, at: now(), version: options.version }),
        { qos: 1, retain: true },
      );
      await closing.endAsync();
    },
  };
}

export type ApplianceFleetLink = ReturnType<typeof createApplianceFleetLink>;
