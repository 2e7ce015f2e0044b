/**
 * The appliance's broker for the MQTT benchmark, alone in this process: `startBroker` as
 * appliance/main.ts calls it (its defaults for queues and drain time-out, a fresh temporary data
 * dir), with one listener; the broker module only (in the appliance the registry and the API
 * share its process, and are measured by their own benchmarks). brokers.ts compiles this file and
 * runs it as production runs the appliance (`npm run build`, APPLIANCE_NODE_FLAGS). MQTT_BENCH_LISTENER=tcp is the development listener (developer principal,
 * no ACL); =tls requires client certificates of the CA in MQTT_BENCH_CERTS (ca.crt, server.crt,
 * server.key) and applies the ACL. Logs at info, as the appliance does, to MQTT_BENCH_LOG, with
 * `process.memoryUsage()` every MEMORY_EVERY_MS, so the bench can tell heap from buffers.
 * Prints `{"port":N,"pid":N}`; stops on SIGTERM, SIGINT or stdin's end, removing the dir.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { startBroker } from '../../../appliance/devices/broker/index.ts';
import { runUntilStopped } from '../servers/lifecycle.ts';

const listener = process.env.MQTT_BENCH_LISTENER === 'tls' ? 'tls' : 'tcp';
const certs = process.env.MQTT_BENCH_CERTS ?? '';
const locationId = process.env.MQTT_BENCH_LOCATION ?? '';
const log = pino(
  { level: 'info' },
  pino.destination({ dest: process.env.MQTT_BENCH_LOG ?? '/dev/null', sync: true }),
);

const MEMORY_EVERY_MS = 250;
setInterval(() => log.info({ memory: process.memoryUsage() }, 'memory'), MEMORY_EVERY_MS).unref();

const tlsListener = () => ({
  host: '127.0.0.1',
  port: 0,
  key: readFileSync(join(certs, 'server.key')),
  cert: readFileSync(join(certs, 'server.crt')),
  ca: readFileSync(join(certs, 'ca.crt')),
});

runUntilStopped({
  name: `bench broker (${listener})`,
  dirPrefix: 'bench-mqtt-broker-',
  start: (dataDir) =>
    startBroker({
      locationId,
      dataDir,
      log,
      ...(listener === 'tls' ? { tls: tlsListener() } : { tcp: { host: '127.0.0.1', port: 0 } }),
    }),
  stop: (broker) => broker.close(),
  announcement: (broker) => ({ port: (broker.tlsPort ?? broker.tcpPort)!, pid: process.pid }),
});
