/**
 * Benchmark runner: `npm run bench -- <name> [--duration S] [--connections N] [--cpu-prof] [--quick]
 * [--backend sqlite|pg]`. Each benchmark measures its own baseline in the same run and its report is
 * written to bench-results/<name>.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runAlertsBench, summarizeAlerts } from './alerts.ts';
import { runAllBench, summarizeAll, writeAllMarkdown } from './all.ts';
import {
  APPLIANCE_ORDERS_CONNECTIONS,
  runApplianceOrdersBench,
  summarizeApplianceOrders,
} from './appliance-orders.ts';
import { type AuthBenchOptions, runAuthBench, summarizeAuth } from './auth.ts';
import { runChatBench, summarizeChat } from './chat.ts';
import { runConsoleBench, summarizeConsole } from './console.ts';
import { runFootprintBench, summarizeFootprint } from './footprint.ts';
import { type HeadOfficeBackend, runHeadOfficeBench, summarizeHeadOffice } from './head-office.ts';
import { runKioskBench, summarizeKiosk } from './kiosk.ts';
import { summarizeMqtt } from './mqtt/report.ts';
import { runMqttBench } from './mqtt.ts';
import { runUsageBench, summarizeUsage } from './pnl/usage.ts';
import { runPnlBench, summarizePnl } from './pnl.ts';
import { runRouterBench, summarizeRouter } from './router.ts';
import type { Backend } from './sync/observe.ts';
import { summarizeSync } from './sync/report.ts';
import { runSyncBench, SYNC_BACKENDS } from './sync.ts';
import { summarizeVision } from './vision/report.ts';
import { runVisionBench } from './vision.ts';
import { summarizeWebhooks } from './webhooks/report.ts';
import { runWebhooksBench, WEBHOOK_BACKENDS } from './webhooks.ts';

type BenchOptions = AuthBenchOptions & { quick?: boolean | undefined; backend?: Backend | undefined };

interface Benchmark {
  description: string;
  run(options: BenchOptions): Promise<{ report: object; summary: string[]; ok: boolean }>;
}

const BENCHMARKS: Record<string, Benchmark> = {
  auth: {
    description: 'GET /v1/auth/me (authenticated) against a bare Fastify route; logins per second',
    async run(options) {
      const report = await runAuthBench(options);
      return { report, summary: summarizeAuth(report), ok: report.valid };
    },
  },
  'appliance-orders': {
    description:
      'POST /v1/commerce/orders on the appliance against bare better-sqlite3 inserts (8 connections)',
    async run(options) {
      // The runner fills in its default of 50 connections; this bench means 8 terminals unless asked.
      const explicit = process.argv.some(
        (arg) => arg === '--connections' || arg.startsWith('--connections='),
      );
      const connections = explicit ? options.connections : APPLIANCE_ORDERS_CONNECTIONS;
      const report = await runApplianceOrdersBench({ ...options, connections });
      return { report, summary: summarizeApplianceOrders(report), ok: report.valid };
    },
  },
  sync: {
    description:
      'appliance sync against the cloud (SQLite and PostgreSQL): drain, punches, pull, 72 h offline, latency',
    async run(options) {
      const backends = options.backend ? [options.backend] : [...SYNC_BACKENDS];
      const report = await runSyncBench({ ...options, backends });
      return { report, summary: summarizeSync(report), ok: report.valid };
    },
  },
  footprint: {
    description:
      'resident memory (process and children) of the compiled appliance idle, under a broker burst and with 8 cameras, and of the compiled cloud idle and under load',
    async run(options) {
      const report = await runFootprintBench({ quick: options.quick });
      return { report, summary: summarizeFootprint(report), ok: report.valid };
    },
  },
  webhooks: {
    description:
      'outbound webhooks (SQLite and PostgreSQL): client ceiling, throughput, latency, isolation from failing endpoints',
    async run(options) {
      const backends = options.backend ? [options.backend] : [...WEBHOOK_BACKENDS];
      const report = await runWebhooksBench({ ...options, backends });
      return { report, summary: summarizeWebhooks(report), ok: report.valid };
    },
  },
  mqtt: {
    description:
      'device broker (TCP, TLS + ACL) against Mosquitto (no-drop anchor, and defaults): 10 publishers, 1 subscriber, QoS 0/1, saturated, paced, slow subscriber',
    async run(options) {
      const report = await runMqttBench({ quick: options.quick, cpuProfileDir: options.cpuProfileDir });
      return { report, summary: summarizeMqtt(report), ok: report.valid };
    },
  },
  vision: {
    description:
      'camera pipeline: bare inference, then 1 and 8 cameras at 720p in an API process (CPU, event loop, latency)',
    async run(options) {
      // --duration, when given, is the sustained window of each camera measure (60 s unless given).
      const explicit = process.argv.some((arg) => arg === '--duration' || arg.startsWith('--duration='));
      const seconds = explicit ? options.duration : undefined;
      const report = await runVisionBench({
        quick: options.quick,
        seconds,
        cpuProfileDir: options.cpuProfileDir,
      });
      return { report, summary: summarizeVision(report), ok: report.valid };
    },
  },
  pnl: {
    description:
      'billing usage ingestion and every P&L report on a year of 3 brands, 50 stores, 2M order lines (SQLite and PostgreSQL)',
    async run(options) {
      const report = await runPnlBench({ quick: options.quick, backend: options.backend });
      return { report, summary: summarizePnl(report), ok: report.valid };
    },
  },
  usage: {
    description:
      'billing usage ingestion alone (the first part of pnl): single posts with re-sends, a replay with re-sends checked for double counts, post-to-visible time (SQLite and PostgreSQL)',
    async run(options) {
      const report = await runUsageBench({ quick: options.quick, backend: options.backend });
      return { report, summary: summarizeUsage(report), ok: report.valid };
    },
  },
  'head-office': {
    description:
      'a 300-item price change published to 200 stores until every store pulled it, against plain edit batches; the order list at 2M orders across 200 stores against GET /v1/auth/me (SQLite and PostgreSQL)',
    async run(options) {
      const report = await runHeadOfficeBench({
        quick: options.quick,
        backend: options.backend as HeadOfficeBackend | undefined,
      });
      return { report, summary: summarizeHeadOffice(report), ok: report.valid };
    },
  },
  alerts: {
    description:
      'alert ingest with dedupe (distinct and repeated fingerprints) against an authenticated GET; P1 ingest to first SMS (SQLite and PostgreSQL)',
    async run(options) {
      const report = await runAlertsBench(options);
      return { report, summary: summarizeAlerts(report), ok: report.valid };
    },
  },
  chat: {
    description:
      'chat WebSocket: 10,000 authenticated connections to one cloud process; delivery latency against 100 connections (same run); incident channel creation',
    async run(options) {
      const report = await runChatBench({ quick: options.quick });
      return { report, summary: summarizeChat(report), ok: report.valid };
    },
  },
  router: {
    description:
      'edge router in front of the gateway (own processes, compiled) against the gateway alone, a bare Node proxy and nginx with the same rules: rate, CPU per request, added p50',
    async run(options) {
      // The runner's default of 50 connections saturates two cores many times over: 16 unless asked.
      const explicit = process.argv.some(
        (arg) => arg === '--connections' || arg.startsWith('--connections='),
      );
      const report = await runRouterBench({ ...options, connections: explicit ? options.connections : 16 });
      return { report, summary: summarizeRouter(report), ok: report.valid };
    },
  },
  kiosk: {
    description:
      'operator UI: bundle size gzipped, and first render after PIN sign-in in Chromium against the login request alone',
    async run(options) {
      const report = await runKioskBench({ quick: options.quick });
      return { report, summary: summarizeKiosk(report), ok: report.valid };
    },
  },
  console: {
    description:
      'fleet console: the Stores screen bundle gzipped, and first render of 200 stores after sign-in in Chromium against the stores list request alone',
    async run(options) {
      const report = await runConsoleBench({ quick: options.quick });
      return { report, summary: summarizeConsole(report), ok: report.valid };
    },
  },
};

const RESULTS_DIR = fileURLToPath(new URL('../../bench-results/', import.meta.url));

BENCHMARKS.all = {
  description:
    'every benchmark above in turn (its quick plan with --quick), then one table of goals met and missed',
  async run(options) {
    const names = Object.keys(BENCHMARKS).filter((name) => name !== 'all');
    const report = await runAllBench({ names, quick: options.quick === true, resultsDir: RESULTS_DIR });
    await writeAllMarkdown(RESULTS_DIR, report);
    return { report, summary: summarizeAll(report), ok: report.valid };
  },
};
const DEFAULTS: BenchOptions = { duration: 10, connections: 50 };

class UsageError extends Error {}

function usage() {
  const names = Object.entries(BENCHMARKS).map(
    ([name, bench]) => `  ${name.padEnd(10)} ${bench.description}`,
  );
  return [
    'usage: npm run bench -- <name> [--duration S] [--connections N] [--cpu-prof] [--quick] [--backend B]',
    '  --cpu-prof  servers under test write V8 CPU profiles to bench-results/profiles/',
    '              (sync: one per measure, of the cloud and of the appliance side)',
    '  --quick     sync: a tenth of every size (10,000 orders, ...): 2 minutes instead of 12 to 20',
    '  --backend   sync: sqlite or pg only (default both; pg at TEST_DATABASE_URL, else',
    '              postgres://postgres@127.0.0.1:5432/test); sync has fixed sizes, no --duration',
    '',
    'benchmarks:',
    ...names,
  ].join('\n');
}

function whole(raw: string | undefined, name: string, fallback: number, max: number) {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}, got "${raw}"`);
  return value;
}

function backendOf(raw: string | undefined): Backend | undefined {
  if (raw === undefined) return undefined;
  const backend = SYNC_BACKENDS.find((name) => name === raw);
  if (!backend) throw new UsageError(`--backend must be one of ${SYNC_BACKENDS.join(', ')}, got "${raw}"`);
  return backend;
}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      'cpu-prof': { type: 'boolean' },
      quick: { type: 'boolean' },
      backend: { type: 'string' },
    },
  });
  const name = positionals[0];
  const bench = name === undefined ? undefined : BENCHMARKS[name];
  if (name === undefined || bench === undefined || positionals.length > 1) {
    throw new UsageError(name === undefined || bench ? '' : `unknown benchmark "${name}"`);
  }
  const options = {
    duration: whole(values.duration, 'duration', DEFAULTS.duration, 600),
    connections: whole(values.connections, 'connections', DEFAULTS.connections, 1000),
    cpuProfileDir: values['cpu-prof'] ? join(RESULTS_DIR, 'profiles') : undefined,
    quick: values.quick,
    backend: backendOf(values.backend),
  };
  return { name, bench, options };
}

async function main() {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(process.argv.slice(2));
  } catch (error) {
    const message = error instanceof UsageError || error instanceof TypeError ? error.message : '';
    console.error([message, usage()].filter(Boolean).join('\n\n'));
    process.exit(2);
  }
  const { name, bench, options } = parsed;
  // Exiting (rather than dying on the signal) runs the benchmark's exit hook, which kills its servers.
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));

  const { report, summary, ok } = await bench.run(options);
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log([...summary, `report: ${file}`].join('\n'));
  if (!ok) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
