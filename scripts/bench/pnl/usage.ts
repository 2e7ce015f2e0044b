/**
 * Usage ingestion benchmark (issue 9): single posts/s over HTTP against a real gateway process on
 * SQLite and PostgreSQL, one post in ten a re-send, then a replay with 10% re-sends through the
 * batch endpoint, both checked against the summary (zero double counts); the time from a post to its
 * record showing in the summary, and the baseline of the same inserts straight into the store.
 * `npm run bench -- usage [--quick] [--backend sqlite|pg]` (also the first part of `pnl`), or
 * `npx tsx scripts/bench/pnl/usage.ts [...]`; both write bench-results/usage.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { signalAll, startServer, withServer } from '../lib/children.ts';
import { codeVersion, goalLine, machineSampler } from '../lib/report.ts';
import { USAGE_BENCH_USER } from './usage-accounts.ts';
import { measureBaseline } from './usage-baseline.ts';
import { authCeiling, replay, signIn, singlePosts, type Target, visibility } from './usage-load.ts';

export type UsageBackend = 'sqlite' | 'pg';

export interface UsageBenchOptions {
  /** Both unless one is named. */
  backend?: UsageBackend | undefined;
  quick?: boolean | undefined;
}

const SERVER = fileURLToPath(new URL('./usage-server.ts', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('../../../bench-results/', import.meta.url));
const DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

export const USAGE_GOALS = { records_per_sec_pg: 10_000, visible_within_ms: 1000 } as const;

const PLANS = {
  full: { seconds: 15, connections: 64, replay: 1_000_000, visibilitySamples: 50, baseline: 200_000 },
  quick: { seconds: 4, connections: 64, replay: 100_000, visibilitySamples: 15, baseline: 50_000 },
};

async function measureBackend(backend: UsageBackend, plan: (typeof PLANS)['full']) {
  const schema = `bench_usage_${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> =
    backend === 'pg' ? { BENCH_DATABASE_URL: DATABASE_URL, BENCH_DATABASE_SCHEMA: schema } : {};
  const server = startServer({ file: SERVER, env, keys: ['port', 'tenant_id', 'subscription_ids'] });
  const http = await withServer(server, async (announced) => {
    const url = `http://127.0.0.1:${announced.port}`;
    const target: Target = {
      url,
      token: await signIn(url, USAGE_BENCH_USER),
      subscriptionIds: announced.subscription_ids as string[],
    };
    // Visibility is sampled while the single-post load runs, as it would be in production.
    const [single, visible] = await Promise.all([
      singlePosts(target, plan.connections, plan.seconds, 'single'),
      visibility(
        target,
        plan.visibilitySamples,
        Math.floor((plan.seconds * 1000) / (plan.visibilitySamples + 5)),
        'seen',
      ),
    ]);
    const replayed = await replay(target, {
      total: plan.replay,
      batchSize: 1000,
      concurrency: 8,
      metric: 'replay',
    });
    const ceiling = await authCeiling(target, plan.connections, plan.seconds);
    return {
      single_posts: single,
      visibility_under_load: visible,
      replay: replayed,
      gateway_auth_ceiling: ceiling,
    };
  });
  const baseline = await measureBaseline(backend, DATABASE_URL, plan.baseline);
  const single = http.single_posts;
  const problems = [
    ...(single.double_counts !== 0 ? [`single posts: ${single.double_counts} double counts`] : []),
    ...(single.quantity_difference !== 0
      ? [`single posts: quantity off by ${single.quantity_difference}`]
      : []),
    ...(single.extra_created !== 0 ? [`single posts: ${single.extra_created} repeats answered 201`] : []),
    ...(http.replay.double_counts !== 0 ? [`replay: ${http.replay.double_counts} double counts`] : []),
    ...(http.replay.quantity_difference !== 0
      ? [`replay: quantity off by ${http.replay.quantity_difference}`]
      : []),
    ...(http.replay.outcomes.failed_batches > 0
      ? [`replay: ${http.replay.outcomes.failed_batches} failed batches`]
      : []),
    ...Object.entries(single.statuses)
      .filter(([status]) => status !== '201' && status !== '200')
      .map(([status, count]) => `single posts: ${count} answered ${status}`),
  ];
  const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
  return {
    ...http,
    baseline,
    ratio_single_to_gateway_ceiling: ratio(single.posts_per_sec, http.gateway_auth_ceiling.requests_per_sec),
    ratio_http_single_to_store: ratio(single.posts_per_sec, baseline.store_multirow_records_per_sec),
    problems,
    valid: problems.length === 0,
  };
}

type BackendResult = Awaited<ReturnType<typeof measureBackend>>;

/** Single posts count every post answered 201 or 200 (a re-send does all the work a new record does). */
function goalsOf(backend: UsageBackend, r: BackendResult) {
  const goal = (measure: string, target: string, value: number, met: boolean) => ({
    name: `${backend} ${measure} ${target}`,
    subject: backend,
    measure,
    target,
    value,
    met: r.valid && met,
    judged: r.valid,
  });
  const rate = USAGE_GOALS.records_per_sec_pg;
  const posts = r.single_posts.posts_per_sec;
  return [
    ...(backend === 'pg' ? [goal('single_posts.posts_per_sec', `>= ${rate}`, posts, posts >= rate)] : []),
    goal(
      'single_posts.double_counts',
      '== 0',
      r.single_posts.double_counts,
      r.single_posts.double_counts === 0,
    ),
    goal('replay.double_counts', '== 0', r.replay.double_counts, r.replay.double_counts === 0),
    goal(
      'replay.records_per_sec (batch endpoint)',
      `>= ${rate}`,
      r.replay.records_per_sec,
      r.replay.records_per_sec >= rate,
    ),
    goal(
      'visibility_under_load.ms.max',
      `< ${USAGE_GOALS.visible_within_ms}`,
      r.visibility_under_load.ms.max,
      r.visibility_under_load.ms.max < USAGE_GOALS.visible_within_ms,
    ),
  ];
}

export async function runUsageBench(options: UsageBenchOptions = {}) {
  const plan = options.quick ? PLANS.quick : PLANS.full;
  const machine = machineSampler();
  const backends: UsageBackend[] = options.backend ? [options.backend] : ['sqlite', 'pg'];
  const results: Partial<Record<UsageBackend, BackendResult>> = {};
  for (const backend of backends) results[backend] = await measureBackend(backend, plan);
  const goals = (Object.entries(results) as Array<[UsageBackend, BackendResult]>).flatMap(([backend, r]) =>
    goalsOf(backend, r),
  );
  return {
    name: 'usage',
    quick: Boolean(options.quick),
    plan,
    machine: machine(),
    code: codeVersion(),
    results,
    goals,
    valid: Object.values(results).every((r) => r.valid),
  };
}

export type UsageReport = Awaited<ReturnType<typeof runUsageBench>>;

export function summarizeUsage(report: UsageReport) {
  const goals = report.goals.map(goalLine);
  return Object.entries(report.results)
    .flatMap(([backend, r]) => [
      `${backend}: single posts ${r.single_posts.posts_per_sec} posts/s (${r.single_posts.resends} re-sends, double counts ${r.single_posts.double_counts}; p99 ${r.single_posts.latency_ms.p99} ms, ${r.single_posts.connections} connections)`,
      `${backend}: replay ${r.replay.records} records (${r.replay.duplicates_sent} duplicates) at ${r.replay.records_per_sec} records/s, double counts ${r.replay.double_counts}`,
      `${backend}: post → visible in summary p50 ${r.visibility_under_load.ms.p50} ms, max ${r.visibility_under_load.ms.max} ms`,
      `${backend}: gateway ceiling (GET /v1/auth/me, same client) ${r.gateway_auth_ceiling.requests_per_sec} requests/s`,
      `${backend}: baseline store ${r.baseline.store_multirow_records_per_sec} records/s, in-process ingest ${r.baseline.ingest_in_process_records_per_sec} records/s`,
    ])
    .concat(goals);
}

async function main() {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' }, backend: { type: 'string' } } });
  const backend = values.backend as UsageBackend | undefined;
  const report = await runUsageBench({ quick: values.quick, backend });
  await mkdir(RESULTS_DIR, { recursive: true });
  await writeFile(join(RESULTS_DIR, 'usage.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${summarizeUsage(report).join('\n')}\n`);
  process.exitCode = report.valid ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.on('exit', signalAll);
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    signalAll();
    process.exitCode = 1;
  });
}
