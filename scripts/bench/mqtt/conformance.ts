/**
 * MQTT 3.1.1 input rules: the table of malformed packets of
 * test/appliance/devices/broker/malformed-cases.ts tried on Debian's Mosquitto and on both of our
 * broker's listeners (development TCP and TLS with client certificates and the ACL), with a
 * bystander publisher and subscriber on each. A case passes when the offending connection is
 * closed (after CONNACK 0x01 for an unsupported protocol level), nothing it sent is routed, and the
 * bystanders keep exchanging messages. Prints the tally and writes bench-results/mqtt-conformance.json;
 * exits 1 when ours fails a case Mosquitto passes.
 *
 *   npx tsx scripts/bench/mqtt/conformance.ts
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectAsync, type IClientOptions } from 'mqtt';
import pino from 'pino';
import { startBroker } from '../../../appliance/devices/broker/index.ts';
import { deviceTopic, storeChannelFilter, storeStatusFilter } from '../../../shared/mqtt/topics.ts';
import {
  type Bystanders,
  type CaseContext,
  type CaseResult,
  caseRunner,
  MALFORMED_CASES,
  type Target,
} from '../../../test/appliance/devices/broker/malformed-cases.ts';
import { createDeviceCa } from '../../../test/support/device-certs.ts';
import { type Mosquitto, startMosquitto } from './mosquitto.ts';

const RESULTS = fileURLToPath(new URL('../../../bench-results/mqtt-conformance.json', import.meta.url));
const LOCATION = '01900000-0000-7000-8000-0000000000c7';
const MANAGER = '01900000-0000-7000-8000-0000000000e7';
const offender = { deviceType: 'sensor' as const, locationId: LOCATION, deviceId: 'conformance-offender' };
const bystander = { deviceType: 'sensor' as const, locationId: LOCATION, deviceId: 'conformance-bystander' };
const OFFENDER_TOPIC = deviceTopic({ ...offender, channel: 'alert' });
const BYSTANDER_TOPIC = deviceTopic({ ...bystander, channel: 'telemetry' });

async function client(url: string, clientId: string, extra: IClientOptions = {}) {
  const connected = await connectAsync(
    url,
    { clientId, protocolVersion: 4, reconnectPeriod: 0, ...extra },
    false,
  );
  connected.on('error', () => {});
  return connected;
}

async function runTable(target: Target, context: CaseContext, bystanders: Bystanders) {
  const run = caseRunner(target, context, bystanders);
  const results: CaseResult[] = [];
  for (const malformed of MALFORMED_CASES) results.push(await run(malformed));
  await Promise.all([bystanders.subscriber.endAsync(true), bystanders.publisher.endAsync(true)]);
  return results;
}

/** Mosquitto and our development listener: anonymous, a subscriber on `#` at QoS 2. */
async function plainTable(port: number) {
  const url = `mqtt://127.0.0.1:${port}`;
  const subscriber = await client(url, 'conformance-subscriber');
  await subscriber.subscribeAsync('#', { qos: 2 });
  const publisher = await client(url, bystander.deviceId);
  const context = { clientId: offender.deviceId, topic: OFFENDER_TOPIC };
  return runTable({ port }, context, { subscriber, publisher, publisherTopic: BYSTANDER_TOPIC });
}

async function tlsTable(port: number, ca: Awaited<ReturnType<typeof createDeviceCa>>) {
  const url = `mqtts://127.0.0.1:${port}`;
  const material = async (cert: Promise<{ cert: string; key: string }>) => ({ ca: ca.cert, ...(await cert) });
  const managerCert = await material(ca.staff(MANAGER, ['manager'], LOCATION));
  const subscriber = await client(url, MANAGER, managerCert);
  await subscriber.subscribeAsync(
    [
      storeChannelFilter(LOCATION, 'alert'),
      storeChannelFilter(LOCATION, 'telemetry'),
      storeStatusFilter(LOCATION),
    ],
    { qos: 2 },
  );
  const publisher = await client(
    url,
    bystander.deviceId,
    await material(ca.device('sensor', LOCATION, bystander.deviceId)),
  );
  const tls = await material(ca.device('sensor', LOCATION, offender.deviceId));
  const context = { clientId: offender.deviceId, topic: OFFENDER_TOPIC };
  return runTable({ port, tls }, context, { subscriber, publisher, publisherTopic: BYSTANDER_TOPIC });
}

async function ourTables() {
  const dataDir = await mkdtemp(join(tmpdir(), 'mqtt-conformance-'));
  const ca = await createDeviceCa('Conformance Device CA');
  const server = await ca.server();
  const broker = await startBroker({
    locationId: LOCATION,
    dataDir,
    log: pino({ level: 'silent' }),
    tcp: { host: '127.0.0.1', port: 0 },
    tls: { host: '127.0.0.1', port: 0, key: server.key, cert: server.cert, ca: ca.cert },
  });
  try {
    return { tcp: await plainTable(broker.tcpPort!), tls: await tlsTable(broker.tlsPort!, ca) };
  } finally {
    await broker.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function mosquittoTable() {
  const dir = await mkdtemp(join(tmpdir(), 'mqtt-conformance-mosquitto-'));
  let mosquitto: Mosquitto | undefined;
  try {
    mosquitto = await startMosquitto(dir);
    return {
      version: mosquitto.version,
      config: mosquitto.config,
      results: await plainTable(mosquitto.port),
    };
  } finally {
    await mosquitto?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const tally = (results: CaseResult[]) => `${results.filter((r) => r.passed).length}/${results.length}`;

const mosquitto = await mosquittoTable();
const ours = await ourTables();
const cases = MALFORMED_CASES.map((malformed, i) => ({
  name: malformed.name,
  rule: malformed.rule,
  expect: malformed.expect,
  mosquitto: mosquitto.results[i]!,
  ours_tcp: ours.tcp[i]!,
  ours_tls: ours.tls[i]!,
}));
const behind = cases.filter((c) => c.mosquitto.passed && !(c.ours_tcp.passed && c.ours_tls.passed));
const report = {
  generated_at: new Date().toISOString(),
  mosquitto: { version: mosquitto.version, config: mosquitto.config },
  tally: { mosquitto: tally(mosquitto.results), ours_tcp: tally(ours.tcp), ours_tls: tally(ours.tls) },
  ours_behind_mosquitto: behind.map((c) => c.name),
  cases,
};
await mkdir(join(RESULTS, '..'), { recursive: true });
await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);

const mark = (result: CaseResult) => (result.passed ? 'pass' : result.routed.length > 0 ? 'ROUTED' : 'FAIL');
for (const c of cases)
  process.stdout.write(
    `${mark(c.mosquitto).padEnd(7)}${mark(c.ours_tcp).padEnd(7)}${mark(c.ours_tls).padEnd(7)}${c.name} [${c.rule}]\n`,
  );
process.stdout.write(
  `\nmosquitto ${mosquitto.version} ${report.tally.mosquitto}, ours (development TCP) ${report.tally.ours_tcp}, ours (TLS) ${report.tally.ours_tls}; ${RESULTS}\n`,
);
if (behind.length > 0) {
  process.stdout.write(`ours fails where Mosquitto passes: ${report.ours_behind_mosquitto.join('; ')}\n`);
  process.exitCode = 1;
}
