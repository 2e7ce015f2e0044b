import { randomBytes } from 'node:crypto';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import {
  type FleetAck,
  type FleetCommand,
  type FleetStatus,
  readAck,
  readStatus,
} from '../../shared/devices/fleet-protocol.ts';
import { fleetFilter, fleetTopic, parseFleetTopic } from '../../shared/mqtt/topics.ts';

export interface CloudFleetLinkOptions {
  /** Any MQTT 3.1.1/5 broker: the embedded one, or Mosquitto, EMQX, … in production. */
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  prefix: string;
  log: Logger;
  onAck(tenantId: string, applianceId: string, ack: FleetAck): Promise<void>;
  onStatus(tenantId: string, applianceId: string, status: FleetStatus): Promise<void>;
}

/**
 * The cloud's end of the fleet link: it sends commands at QoS 1 to an appliance's command topic
 * (the broker keeps them for an appliance that is away, in its persistent session) and hears the
 * appliances' acknowledgements and statuses. Handlers are idempotent: with several gateway
 * replicas each hears every answer.
 */
export function createCloudFleetLink(options: CloudFleetLinkOptions) {
  const { prefix, log } = options;
  let client: MqttClient | undefined;

  async function receive(topic: string, payload: Buffer) {
    const parsed = parseFleetTopic(topic, prefix);
    if (!parsed) return;
    if (parsed.channel === 'ack') {
      const ack = readAck(payload);
      if (ack) await options.onAck(parsed.tenantId, parsed.applianceId, ack);
      else log.warn({ topic }, 'fleet acknowledgement refused: not an acknowledgement');
    } else if (parsed.channel === 'status') {
      const status = readStatus(payload);
      if (status) await options.onStatus(parsed.tenantId, parsed.applianceId, status);
    }
  }

  return {
    start(): Promise<void> {
      const clientOptions: IClientOptions = {
        clientId: `cloud-${randomBytes(6).toString('hex')}`,
        clean: true,
        reconnectPeriod: 1000,
        ...(options.username ? { username: options.username, password: options.password } : {}),
      };
      client = mqtt.connect(options.url, clientOptions);
      // One at a time, in arrival order: an appliance's `received` must land before its `succeeded`.
      let handled = Promise.resolve();
      client.on('message', (topic, payload) => {
        handled = handled
          .then(() => receive(topic, payload))
          .catch((error: unknown) => log.error({ err: error, topic }, 'fleet message failed'));
      });
      client.on('error', (error) => log.warn({ err: error }, 'fleet link error'));
      client.on('connect', () => {
        client?.subscribe([fleetFilter('ack', prefix), fleetFilter('status', prefix)], { qos: 1 });
      });
      return new Promise((resolve, reject) => {
        client!.once('connect', () => resolve());
        client!.once('error', reject);
      });
    },

    /** Resolves once the broker has the command (PUBACK), not when the appliance acted on it. */
    async send(tenantId: string, applianceId: string, command: FleetCommand) {
      if (!client) throw new Error('the fleet link is not started');
      await client.publishAsync(fleetTopic(tenantId, applianceId, 'cmd', prefix), JSON.stringify(command), {
        qos: 1,
      });
    },

    connected: () => client?.connected === true,

    async close() {
      await client?.endAsync();
    },
  };
}

export type CloudFleetLink = ReturnType<typeof createCloudFleetLink>;
