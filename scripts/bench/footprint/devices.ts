/**
 * The broker burst's devices, in a process of their own (forked by the bench, asked over IPC):
 * one mqtt.js client per fridge sensor, each with its certificate, publishing its own telemetry
 * topic as sensors do (JSON metrics, QoS 1), `window` messages outstanding per device until each
 * has had `perDevice` acknowledged.
 */
import { connectAsync, type MqttClient } from 'mqtt';
import { clientOptions, noDelay } from '../mqtt/clients.ts';
import { serveRequests } from '../mqtt/control.ts';
import type { PublisherSpec } from '../mqtt/protocol.ts';

export type DeviceRequest =
  | { op: 'connect'; devices: PublisherSpec[] }
  | { op: 'burst'; perDevice: number; window: number }
  | { op: 'disconnect' };

export interface BurstResult {
  acknowledged: number;
  errors: number;
  first_error: string | null;
  seconds: number;
}

let clients: Array<{ client: MqttClient; topic: string }> = [];

async function connect(devices: PublisherSpec[]) {
  await disconnect();
  clients = await Promise.all(
    devices.map(async (spec) => {
      const client = noDelay(await connectAsync(spec.url, clientOptions(spec), false));
      client.on('error', () => {}); // counted where a publish fails
      return { client, topic: spec.topic };
    }),
  );
}

async function disconnect() {
  await Promise.all(clients.map(({ client }) => client.endAsync().catch(() => {})));
  clients = [];
}

const telemetry = (n: number) =>
  JSON.stringify({
    at: new Date().toISOString(),
    metrics: { temperature_c: 3 + (n % 10) / 10, door_open: n % 7 === 0 },
  });

async function burst(perDevice: number, window: number): Promise<BurstResult> {
  const started = performance.now();
  const result: BurstResult = { acknowledged: 0, errors: 0, first_error: null, seconds: 0 };
  const lane = async (device: { client: MqttClient; topic: string }, next: { n: number }) => {
    while (next.n < perDevice && device.client.connected) {
      next.n += 1;
      try {
        await device.client.publishAsync(device.topic, telemetry(next.n), { qos: 1 });
        result.acknowledged += 1;
      } catch (error) {
        result.errors += 1;
        result.first_error ??= (error as Error).message;
      }
    }
  };
  await Promise.all(
    clients.flatMap((device) => {
      const next = { n: 0 };
      return Array.from({ length: window }, () => lane(device, next));
    }),
  );
  result.seconds = Math.round((performance.now() - started) / 10) / 100;
  return result;
}

serveRequests<DeviceRequest>(async (request) => {
  switch (request.op) {
    case 'connect':
      return connect(request.devices);
    case 'burst':
      return burst(request.perDevice, request.window);
    case 'disconnect':
      return disconnect();
  }
});
