/**
 * The brokers the same load runs against, one at a time, each in a process of its own: Mosquitto
 * configured to drop nothing (the anchor the goals compare with) and at its defaults (for
 * information: it drops), and ours (broker.ts) on plain TCP and on TLS with the ACL. Each says
 * where it listens, how to reach its process (memory, CPU) and what it logged.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APPLIANCE_NODE_FLAGS, bundle } from '../../build.ts';
import { startServer } from '../lib/children.ts';
import type { BrokerUnderTest, HeapPeak } from './cases.ts';
import { type Mosquitto, startMosquitto } from './mosquitto.ts';
import { memoryOf } from './proc.ts';
import { clientSpecs, type Identities, LOCATION } from './targets.ts';

export const BROKER_NAMES = ['mosquitto-fair', 'mosquitto', 'ours-tcp', 'ours-tls-acl'] as const;
export type BrokerName = (typeof BROKER_NAMES)[number];
export type MosquittoName = Extract<BrokerName, `mosquitto${string}`>;
/** What our broker's goals are measured against. */
export const ANCHOR: MosquittoName = 'mosquitto-fair';

export const BROKER_DESCRIPTIONS: Record<BrokerName, string> = {
  'mosquitto-fair':
    'Mosquitto, plain TCP, configured to drop nothing the bench sends (the anchor of the goals): listener on a free loopback port, allow_anonymous true, persistence false, max_inflight_messages raised to publishers x window, max_queued_messages 0 (no maximum), set_tcp_nodelay true',
  mosquitto:
    'Mosquitto, plain TCP, at its defaults (for information): listener on a free loopback port, allow_anonymous true, persistence false, everything else at its defaults (max_inflight_messages 20, max_queued_messages 1000: a subscriber past them loses QoS 1 messages its publishers already have PUBACKs for)',
  'ours-tcp':
    'the appliance broker (startBroker, Aedes) as the appliance runs it in production (compiled by `npm run build`, Node with APPLIANCE_NODE_FLAGS), alone in its process, plain TCP development listener: developer principal, no identity or ACL checks',
  'ours-tls-acl':
    'the appliance broker (startBroker, Aedes) as the appliance runs it in production (compiled by `npm run build`, Node with APPLIANCE_NODE_FLAGS), alone in its process, TLS 1.2+ with client certificates of the device CA, identity from the certificate, topic ACL on every publish, subscribe and delivery',
};

const BROKER_SOURCE = 'scripts/bench/mqtt/broker.ts';
// Inside the repository, so that the packages it leaves external resolve from node_modules.
const BROKER_COMPILED = fileURLToPath(new URL('../../../dist/bench/mqtt-broker.mjs', import.meta.url));

export interface StartedBroker extends BrokerUnderTest {
  name: BrokerName;
  port: number;
  version: string | null;
  /** VmRSS and VmHWM now; undefined once stopped. */
  memory(): { rss_mb: number; hwm_mb: number } | undefined;
  stop(): Promise<void>;
}

export interface BrokerContext {
  identities: Identities;
  /** QoS 1 messages the publishers may have outstanding in all: the fair Mosquitto's in-flight limit. */
  outstanding: number;
  workDir: string;
  cpuProfileDir: string | undefined;
}

type MemoryUsage = Record<'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', number>;
interface LogEntry {
  level: number;
  msg: string;
  reason?: string;
  memory?: MemoryUsage;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** The largest of each figure of `process.memoryUsage()` the broker logged. */
function heapPeak(entries: LogEntry[]): HeapPeak | null {
  const samples = entries.flatMap((entry) => (entry.memory ? [entry.memory] : []));
  if (samples.length === 0) return null;
  const peak = (key: keyof MemoryUsage) => mb(Math.max(...samples.map((sample) => sample[key])));
  return {
    heap_total_mb: peak('heapTotal'),
    heap_used_mb: peak('heapUsed'),
    external_mb: peak('external'),
    array_buffers_mb: peak('arrayBuffers'),
  };
}

/** Our broker's log since a byte offset: warnings by message (and reason), and its memory. */
function pinoLog(file: string) {
  const size = () => {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  };
  return {
    mark: size,
    since(mark: number) {
      const text = readFileSync(file).subarray(mark).toString('utf8');
      const entries = text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LogEntry);
      const warnings: Record<string, number> = {};
      for (const entry of entries) {
        if (entry.level < 40) continue;
        const key = entry.reason ? `${entry.msg}: ${entry.reason}` : entry.msg;
        warnings[key] = (warnings[key] ?? 0) + 1;
      }
      return { warnings, memory: heapPeak(entries) };
    },
  };
}

/** Mosquitto's log lines since an index, without timestamps, ports and our client ids. */
function mosquittoLog(mosquitto: Mosquitto, clientIds: string[]) {
  const normalize = (line: string) => {
    let text = line.replace(/^\d+: /, '').replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
    for (const id of clientIds) text = text.replaceAll(id, '<client>');
    return text.replace(/ \(p\d+, c\d+, k\d+\)/, '');
  };
  return {
    mark: () => mosquitto.lines.length,
    since(mark: number) {
      const warnings: Record<string, number> = {};
      for (const line of mosquitto.lines.slice(mark)) {
        const key = normalize(line);
        if (key) warnings[key] = (warnings[key] ?? 0) + 1;
      }
      return { warnings, memory: null };
    },
  };
}

async function startMosquittoUnderTest(name: MosquittoName, context: BrokerContext): Promise<StartedBroker> {
  const limits = name === 'mosquitto-fair' ? { inflight: context.outstanding } : undefined;
  const mosquitto = await startMosquitto(context.workDir, limits);
  const specs = clientSpecs(context.identities, `mqtt://127.0.0.1:${mosquitto.port}`, false);
  const clientIds = [...specs.publishers, specs.subscriber].map((spec) => spec.clientId);
  return {
    name,
    pid: mosquitto.pid,
    port: mosquitto.port,
    version: mosquitto.version,
    ...specs,
    log: mosquittoLog(mosquitto, clientIds),
    memory: () => memoryOf(mosquitto.pid),
    stop: mosquitto.stop,
  };
}

async function startOurs(name: 'ours-tcp' | 'ours-tls-acl', context: BrokerContext): Promise<StartedBroker> {
  const tls = name === 'ours-tls-acl';
  const logFile = join(context.workDir, `${name}.log`);
  await bundle(BROKER_SOURCE, BROKER_COMPILED);
  const server = await startServer({
    file: BROKER_COMPILED,
    compiled: true,
    nodeArgs: APPLIANCE_NODE_FLAGS,
    env: {
      MQTT_BENCH_LISTENER: tls ? 'tls' : 'tcp',
      MQTT_BENCH_CERTS: context.identities.certDir,
      MQTT_BENCH_LOCATION: LOCATION,
      MQTT_BENCH_LOG: logFile,
    },
    keys: ['port', 'pid'],
    cpuProfileDir: context.cpuProfileDir && join(context.cpuProfileDir, `mqtt-${name}`),
  });
  const { port, pid } = server.announced as { port: number; pid: number };
  const scheme = tls ? 'mqtts' : 'mqtt';
  return {
    name,
    pid,
    port,
    version: null,
    ...clientSpecs(context.identities, `${scheme}://127.0.0.1:${port}`, tls),
    log: pinoLog(logFile),
    memory: () => memoryOf(pid),
    stop: server.stop,
  };
}

export const isMosquitto = (name: BrokerName): name is MosquittoName => name.startsWith('mosquitto');

export function startBrokerUnderTest(name: BrokerName, context: BrokerContext) {
  return isMosquitto(name) ? startMosquittoUnderTest(name, context) : startOurs(name, context);
}
