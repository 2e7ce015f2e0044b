import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type Announcement, signalAll, startServer, withServer } from './lib/children.ts';
import { round } from './lib/load.ts';
import { codeVersion, machineSampler } from './lib/report.ts';
import {
  type BenchAppliance,
  createTravelClock,
  openBenchAppliance,
  syncSettings,
  type TravelClock,
  withoutFsync,
} from './sync/appliance.ts';
import { measureRawBaseline } from './sync/baseline.ts';
import { cloudControl } from './sync/control.ts';
import { connect, measureBacklog } from './sync/drain.ts';
import { measureLatency } from './sync/latency.ts';
import type { Backend, MeasureContext } from './sync/observe.ts';
import { measureOffline } from './sync/offline.ts';
import { autovacuumOf, dropSchema, emulateAutoanalyze } from './sync/pg.ts';
import { FULL_PLAN, QUICK_PLAN, type SyncPlan } from './sync/plan.ts';
import { measurePull } from './sync/pull.ts';
import { type BackendReport, emptyReport, goalsOf, type SyncReport } from './sync/report.ts';
import { PUNCH_CLOCK_BACK_MS, seedOrders, seedPunches } from './sync/seed.ts';

export interface SyncBenchOptions {
  /** A tenth of the sizes: a quick look, not a verdict. */
  quick?: boolean | undefined;
  /** Both unless one is asked for. */
  backends: Backend[];
  /** When set, each measure writes a CPU profile of each process here. */
  cpuProfileDir?: string | undefined;
}

export const SYNC_BACKENDS: readonly Backend[] = ['sqlite', 'pg'];

const SYNC_CLOUD = fileURLToPath(new URL('./servers/sync-cloud.ts', import.meta.url));
const DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
// The cloud's default, which the bench leaves alone (CLOUD_SYNC_MAX_CONCURRENT_PUSHES).
const CLOUD_MAX_CONCURRENT_PUSHES = 8;

/** Runs one measure; a failure is noted as a problem and the other measures still run. */
async function attempt<T>(
  context: MeasureContext,
  measure: string,
  work: () => Promise<T>,
): Promise<T | null> {
  try {
    return await work();
  } catch (error) {
    context.problems.push(`${context.backend} ${measure} failed: ${(error as Error).message}`);
    return null;
  }
}

const newAppliance = async (context: MeasureContext, clock?: TravelClock) =>
  openBenchAppliance(await context.control.createStore(), context.cloudUrl, clock);

/** A store of its own for one measure, with its appliance connected (first round done). */
async function connectedAppliance(context: MeasureContext) {
  const app = await newAppliance(context);
  await connect(app);
  return app;
}

/**
 * Fills the drain and punch outboxes here while the cloud child writes the pull feed: two processes,
 * two cores. The pull store connected first, so it reads the feed rather than a snapshot.
 */
async function seed(
  context: MeasureContext,
  apps: { drain: BenchAppliance; punches: BenchAppliance; pull: BenchAppliance },
) {
  const started = performance.now();
  const { plan } = context;
  const [feed, punches] = await Promise.all([
    context.control.writeFeed(apps.pull.store.location_id, plan.pullChanges),
    (async () => {
      await withoutFsync(apps.drain.db, () => seedOrders(apps.drain, plan.drainOrders));
      return withoutFsync(apps.punches.db, () => seedPunches(apps.punches, plan.punches));
    })(),
  ]);
  return { feed, punches, seconds: round((performance.now() - started) / 1000, 1) };
}

async function measureBacklogs(context: MeasureContext, report: BackendReport) {
  const apps = {
    drain: await connectedAppliance(context),
    // Its clock runs from 72 hours back while it punches, from its very first write, and its first
    // round carries the backlog: its clock must not be a day behind stamps it has seen (seedPunches).
    punches: await newAppliance(context, createTravelClock(-PUNCH_CLOCK_BACK_MS)),
    pull: await connectedAppliance(context),
  };
  try {
    const seeded = await seed(context, apps);
    report.seeding_seconds = seeded.seconds;
    const drain = await attempt(context, 'drain', () => measureBacklog(context, apps.drain, 'drain'));
    report.drain = drain && { orders: context.plan.drainOrders, ...drain };
    report.raw_baseline = await attempt(context, 'raw baseline', () =>
      measureRawBaseline(context.backend, apps.drain, context.databaseUrl),
    );
    if (drain && report.raw_baseline)
      report.ratio_drain_to_raw = round(drain.records_per_sec / report.raw_baseline.records_per_sec, 3);
    const punches = await attempt(context, 'punches', () => measureBacklog(context, apps.punches, 'punches'));
    report.punches = punches && { ...seeded.punches, ...punches };
    report.pull = await attempt(context, 'pull', () => measurePull(context, apps.pull, seeded.feed));
  } finally {
    for (const app of Object.values(apps)) await app.close();
  }
}

async function measureOne<T>(
  context: MeasureContext,
  measure: string,
  work: (app: BenchAppliance) => Promise<T>,
): Promise<T | null> {
  return attempt(context, measure, async () => {
    const app = await newAppliance(context);
    try {
      return await work(app);
    } finally {
      await app.close();
    }
  });
}

async function measureBackend(context: MeasureContext): Promise<BackendReport> {
  const report = emptyReport();
  await attempt(context, 'backlog measures', () => measureBacklogs(context, report));
  report.offline_72h = await measureOne(context, '72h offline', (app) => measureOffline(context, app));
  report.online_latency = await measureOne(context, 'online latency', (app) => measureLatency(context, app));
  return report;
}

/** With PostgreSQL's autovacuum off, the bench analyzes as it would while the measures run. */
async function measureWithStatistics(context: MeasureContext, autovacuum: string | undefined) {
  if (!context.schema || autovacuum !== 'off') return measureBackend(context);
  const stop = emulateAutoanalyze(context.databaseUrl, context.schema);
  let report: BackendReport | undefined;
  try {
    report = await measureBackend(context);
  } finally {
    const analyzed = await stop();
    if (report) report.pg_tables_analyzed = analyzed;
  }
  return report;
}

/** The cloud child for one backend; PostgreSQL gets a fresh schema, dropped whatever happens. */
async function runBackend(
  backend: Backend,
  plan: SyncPlan,
  options: SyncBenchOptions,
  autovacuum: string | undefined,
): Promise<BackendReport> {
  const problems: string[] = [];
  const schema = backend === 'pg' ? `bench_sync_${randomBytes(5).toString('hex')}` : '';
  const server = startServer({
    file: SYNC_CLOUD,
    env: {
      LOG_LEVEL: 'warn',
      BENCH_DATABASE_URL: backend === 'pg' ? DATABASE_URL : '',
      BENCH_DATABASE_SCHEMA: schema,
    },
    keys: ['port', 'control_port', 'tenant_id'],
  });
  const contextOf = (announced: Announcement): MeasureContext => ({
    backend,
    databaseUrl: DATABASE_URL,
    schema: schema || undefined,
    cloudUrl: `http://127.0.0.1:${announced.port}`,
    control: cloudControl(Number(announced.control_port)),
    plan,
    profileDir: options.cpuProfileDir,
    problems,
  });
  try {
    const report = await withServer(server, (announced) =>
      measureWithStatistics(contextOf(announced), autovacuum),
    );
    return { ...report, valid: problems.length === 0, problems };
  } catch (error) {
    problems.push(`${backend}: ${(error as Error).message}`);
    return { ...emptyReport(), problems };
  } finally {
    if (schema) await dropSchema(DATABASE_URL, schema).catch(() => undefined);
  }
}

/** Each backend in turn, its cloud child stopped before the next one starts. */
export async function runSyncBench(options: SyncBenchOptions): Promise<SyncReport> {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  const code = codeVersion();
  const machine = machineSampler();
  const backends: Partial<Record<Backend, BackendReport>> = {};
  const pgAutovacuum = options.backends.includes('pg')
    ? await autovacuumOf(DATABASE_URL).catch(() => 'unreachable')
    : undefined;
  process.on('exit', signalAll);
  try {
    for (const backend of options.backends)
      backends[backend] = await runBackend(backend, plan, options, pgAutovacuum);
  } finally {
    process.off('exit', signalAll);
  }
  const problems = Object.values(backends).flatMap((report) => report.problems);
  const valid = problems.length === 0;
  return {
    name: 'sync',
    at: new Date().toISOString(),
    machine: machine(),
    code,
    settings: {
      plan: options.quick ? 'quick' : 'full',
      sizes: plan,
      backends: options.backends,
      batch_size: syncSettings.batchSize,
      in_flight: syncSettings.inFlight,
      pull_limit: syncSettings.pullLimit,
      cloud_max_concurrent_pushes: CLOUD_MAX_CONCURRENT_PUSHES,
      ...(pgAutovacuum ? { pg_autovacuum: pgAutovacuum } : {}),
    },
    valid,
    problems,
    backends,
    goals: goalsOf(backends),
  };
}
