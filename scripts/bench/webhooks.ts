import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_WEBHOOK_OPTIONS } from '../../cloud/webhooks/service.ts';
import { type Announcement, signalAll, startServer, withServer } from './lib/children.ts';
import { round } from './lib/load.ts';
import { codeVersion, machineSampler } from './lib/report.ts';
import { autovacuumOf } from './sync/pg.ts';
import { startProfile } from './sync/profile.ts';
import { measureBaseline } from './webhooks/baseline.ts';
import { census } from './webhooks/census.ts';
import { type Backend, type Behaviour, openBenchCloud } from './webhooks/cloud.ts';
import { FULL_PLAN, QUICK_PLAN, type WebhookPlan } from './webhooks/plan.ts';
import { type ReceiverControl, receiverControl } from './webhooks/receiver-control.ts';
import {
  type BackendReport,
  emptyReport,
  goalsOf,
  summarizeWebhooks,
  type WebhooksReport,
} from './webhooks/report.ts';
import { measureSteady } from './webhooks/steady.ts';
import { measureThroughput } from './webhooks/throughput.ts';

export interface WebhooksBenchOptions {
  quick?: boolean | undefined;
  /** Both unless one is asked for. */
  backends: Backend[];
  /** When set, each measure writes a CPU profile of this process here (and the receiver one of its life). */
  cpuProfileDir?: string | undefined;
}

export const WEBHOOK_BACKENDS: readonly Backend[] = ['sqlite', 'pg'];

const RECEIVER = fileURLToPath(new URL('./webhooks/receiver.ts', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('../../bench-results/', import.meta.url));
const DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
// outbound.ts's default, which the worker uses.
const CONNECTIONS_PER_ORIGIN = 8;

const LAYOUT =
  'bench process: the cloud services, the event appender and the delivery worker (as the gateway runs ' +
  'it in-process); child process: the receiver (one loopback port per endpoint); PostgreSQL: its own ' +
  'server processes. All share this machine’s cores, so the receiver and database take CPU the worker ' +
  'would otherwise have.';

interface Context {
  backend: Backend;
  plan: WebhookPlan;
  receiver: ReceiverControl;
  ports: number[];
  clockOffset: number;
  profileDir: string | undefined;
  problems: string[];
  warnings: string[];
  /** PostgreSQL tables that had statistics by the end of a measure. */
  analyzed: Set<string>;
}

/** Runs one measure; a failure is noted as a problem and the other measures still run. */
async function attempt<T>(context: Context, measure: string, work: () => Promise<T>): Promise<T | null> {
  const stopProfile = context.profileDir ? await startProfile() : undefined;
  try {
    return await work();
  } catch (error) {
    context.problems.push(`${context.backend} ${measure} failed: ${(error as Error).message}`);
    return null;
  } finally {
    await stopProfile?.(join(context.profileDir ?? '', `webhooks-${context.backend}-${measure}.cpuprofile`));
  }
}

/** A fresh store with one endpoint per behaviour given, closed (and dropped) whatever happens. */
async function withCloud<T>(
  context: Context,
  behaviours: Behaviour[],
  work: (cloud: Awaited<ReturnType<typeof openBenchCloud>>) => Promise<T>,
) {
  const cloud = await openBenchCloud({
    backend: context.backend,
    databaseUrl: DATABASE_URL,
    endpoints: behaviours.map((behaviour, i) => ({ port: context.ports[i]!, behaviour })),
    timeoutSeconds: context.plan.hangTimeoutSeconds,
  });
  try {
    const result = await work(cloud);
    for (const table of await cloud.tablesAnalyzed()) context.analyzed.add(table);
    return result;
  } finally {
    context.warnings.push(...cloud.warnings);
    await cloud.close();
  }
}

/** Interleaved so that no stretch of creation order is all one kind: 2 in 4 healthy, 1 failing, 1 hanging. */
const mixed = (count: number): Behaviour[] =>
  Array.from({ length: count }, (_, i) => (i % 4 === 1 ? 'fail' : i % 4 === 3 ? 'hang' : 'ok'));

async function runBackend(context: Context, baselineRate: number | undefined): Promise<BackendReport> {
  const { plan, receiver, clockOffset, problems } = context;
  const healthy: Behaviour[] = Array.from({ length: plan.endpoints }, () => 'ok');
  const report = emptyReport();
  report.throughput = await attempt(context, 'throughput', () =>
    withCloud(context, healthy, (cloud) => measureThroughput(cloud, receiver, plan, clockOffset, problems)),
  );
  report.latency = await attempt(context, 'latency', () =>
    withCloud(context, healthy, (cloud) => measureSteady(cloud, receiver, plan, healthy, clockOffset)),
  );
  report.isolation = await attempt(context, 'isolation', () =>
    withCloud(context, mixed(plan.endpoints), (cloud) =>
      measureSteady(cloud, receiver, plan, mixed(plan.endpoints), clockOffset),
    ),
  );
  for (const [name, steady] of [
    ['latency', report.latency],
    ['isolation', report.isolation],
  ] as const) {
    if (steady?.timed_out)
      problems.push(`${name}: ${steady.healthy.delivered} of ${steady.healthy.deliveries} delivered`);
  }
  if (report.throughput && baselineRate)
    report.ratio_throughput_to_baseline = round(report.throughput.deliveries_per_sec / baselineRate, 3);
  if (report.latency && report.isolation)
    report.ratio_isolation_p99 = round(
      report.isolation.healthy.latency_ms.p99 / Math.max(1, report.latency.healthy.latency_ms.p99),
      2,
    );
  const failed = context.warnings.filter((line) => /"level":50/.test(line));
  if (failed.length > 0) problems.push(`${failed.length} worker errors, first: ${failed[0]}`);
  report.worker_warnings = context.warnings.slice(0, 10);
  report.tables_analyzed = [...context.analyzed];
  report.problems = problems;
  report.valid = problems.length === 0;
  return report;
}

export async function runWebhooksBench(options: WebhooksBenchOptions): Promise<WebhooksReport> {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  census.install();
  const machine = machineSampler();
  const pgAutovacuum = options.backends.includes('pg')
    ? await autovacuumOf(DATABASE_URL).catch(() => 'unreachable')
    : undefined;
  const server = startServer({
    file: RECEIVER,
    env: { RECEIVER_ENDPOINTS: String(plan.endpoints) },
    keys: ['port', 'endpoints'],
    cpuProfileDir: options.cpuProfileDir,
  });
  const backends: Partial<Record<Backend, BackendReport>> = {};
  const problems: string[] = [];
  let baseline: WebhooksReport['baseline'] = null;
  let clock: WebhooksReport['clock_offset_ms'] = null;
  process.on('exit', signalAll);
  try {
    await withServer(server, async (announced: Announcement) => {
      const receiver = receiverControl(announced.port);
      const ports = announced.endpoints as number[];
      const measured = await receiver.clockOffset();
      clock = { offset: round(measured.offset, 3), rtt: round(measured.rtt, 3) };
      const base = { plan, receiver, ports, clockOffset: measured.offset, profileDir: options.cpuProfileDir };
      const baselineContext: Context = {
        ...base,
        backend: 'sqlite',
        problems,
        warnings: [],
        analyzed: new Set(),
      };
      baseline = await attempt(baselineContext, 'baseline', () =>
        measureBaseline(ports, plan.baselineSeconds),
      );
      for (const backend of options.backends) {
        const context: Context = { ...base, backend, problems: [], warnings: [], analyzed: new Set() };
        backends[backend] = await runBackend(context, baseline?.requests_per_sec);
      }
    });
  } catch (error) {
    problems.push(`receiver: ${(error as Error).message}`);
  } finally {
    process.off('exit', signalAll);
  }
  const allProblems = [...problems, ...Object.values(backends).flatMap((report) => report.problems)];
  return {
    name: 'webhooks',
    at: new Date().toISOString(),
    machine: machine(),
    code: codeVersion(['cloud', 'shared']),
    layout: LAYOUT,
    settings: {
      plan: options.quick ? 'quick' : 'full',
      sizes: plan,
      backends: options.backends,
      worker: {
        max_lanes: DEFAULT_WEBHOOK_OPTIONS.maxLanes,
        poll_ms: DEFAULT_WEBHOOK_OPTIONS.pollMs,
        lease_ms: DEFAULT_WEBHOOK_OPTIONS.leaseMs,
        connections_per_origin: CONNECTIONS_PER_ORIGIN,
      },
      ...(pgAutovacuum ? { pg_autovacuum: pgAutovacuum } : {}),
    },
    clock_offset_ms: clock,
    baseline,
    valid: allProblems.length === 0,
    problems: allProblems,
    backends,
    goals: goalsOf(backends),
  };
}

/** Standalone: the same flags and report file as `npm run bench -- webhooks`. */
async function main() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      backend: { type: 'string' },
      'cpu-prof': { type: 'boolean' },
    },
  });
  const backend = WEBHOOK_BACKENDS.find((name) => name === values.backend);
  if (values.backend !== undefined && !backend) {
    console.error(`--backend must be one of ${WEBHOOK_BACKENDS.join(', ')}, got "${values.backend}"`);
    process.exit(2);
  }
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));
  const report = await runWebhooksBench({
    quick: values.quick,
    backends: backend ? [backend] : [...WEBHOOK_BACKENDS],
    cpuProfileDir: values['cpu-prof'] ? join(RESULTS_DIR, 'profiles') : undefined,
  });
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, 'webhooks.json');
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log([...summarizeWebhooks(report), `report: ${file}`].join('\n'));
  if (!report.valid) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(`bench failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  });
}
