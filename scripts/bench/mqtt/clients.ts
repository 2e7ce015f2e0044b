/** mqtt.js options shared by the load processes: MQTT 3.1.1, as Mosquitto's clients speak it to both brokers. */
import type { Socket } from 'node:net';
import type { IClientOptions, MqttClient } from 'mqtt';
import type { ClientSpec } from './protocol.ts';

export function clientOptions(spec: ClientSpec, overrides: IClientOptions = {}): IClientOptions {
  return {
    clientId: spec.clientId,
    protocolVersion: 4,
    clean: true,
    keepalive: 60,
    connectTimeout: 10_000,
    reconnectPeriod: 0,
    ...(spec.tls ? { ca: spec.tls.ca, cert: spec.tls.cert, key: spec.tls.key } : {}),
    ...overrides,
  };
}

/**
 * mqtt.js leaves Nagle's algorithm on, which holds a small write back until the last one is
 * acknowledged: latency of the client's, not the broker's. Off on every connection, as a device's
 * MQTT stack usually has it.
 */
export function noDelay(client: MqttClient) {
  const apply = () => (client.stream as Partial<Socket> | undefined)?.setNoDelay?.(true);
  apply();
  client.on('connect', apply);
  return client;
}
