/**
 * Orders created per second and their latency on the real appliance (POST /v1/commerce/orders)
 * against a bare Fastify route writing the same rows with better-sqlite3 under the same durability
 * settings (WAL, synchronous=FULL), measured in one run on one machine. Each server runs alone in
 * its own process, one at a time, so the load generator (this process) does not share its core.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

export interface ApplianceOrdersBenchOptions {
  /** Seconds measured per server, after the warm-up. */
  duration: number;
  /** Concurrent connections (terminals); 8 unless asked otherwise. */
  connections: number;
  /** When set, each server writes a V8 CPU profile here as it exits. */
  cpuProfileDir?: string | undefined;
}

export const APPLIANCE_ORDERS_CONNECTIONS = 8;

export interface OrderRateMeasurement {
  requests_per_sec: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non2xx: number;
  errors: number;
  status_codes: Record<string, number>;
}

export interface ApplianceOrdersReport {
  name: 'appliance-orders';
  at: string;
  machine: { cpus: number; cpu_model: string; node: string; load_1m: { before: number; after: number } };
  settings: { duration: number; connections: number; warmup: number };
  valid: boolean;
  problems: string[];
  bare: OrderRateMeasurement;
  appliance: OrderRateMeasurement;
  ratio: number;
  goal: { ratio_at_least: number; p99_under_ms: number; met: boolean };
}

const GOAL_RATIO = 0.6;
const GOAL_P99_MS = 20;
const WARMUP_SECONDS = 2;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 10_000;
const STDERR_KEPT = 4096;
// Seeded by servers/appliance.ts.
const PIN_LOGIN = { identifier: 'bench', pin: '135790' };

const TSX_LOADER = import.meta.resolve('tsx');
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVERS = {
  bare: fileURLToPath(new URL('./servers/bare-orders.ts', import.meta.url)),
  appliance: fileURLToPath(new URL('./servers/appliance.ts', import.meta.url)),
};

// autocannon ships no type declarations; this is the part of its API used here.
interface LoadOptions {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  connections: number;
  pipelining: number;
  duration: number;
}
interface LoadResult {
  requests: { mean: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: LoadOptions,
) => Promise<LoadResult>;

/** What a server prints once listening: its port and anything else the bench needs. */
type Announcement = { port: number } & Record<string, unknown>;

interface Server {
  announced: Announcement;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

function exited(child: ChildProcess, timeoutMs: number) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** SIGTERM lets a server clean up (both remove their data dirs); SIGKILL when it does not exit. */
async function stopChild(child: ChildProcess) {
  child.kill('SIGTERM');
  if (!(await exited(child, STOP_TIMEOUT_MS))) child.kill('SIGKILL');
  running.delete(child);
}

const signalAll = () => {
  for (const child of running) child.kill('SIGTERM');
};

function announcementOf(line: string): Announcement | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return undefined;
    return typeof (value as { port?: unknown }).port === 'number' ? (value as Announcement) : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the first JSON line with a port from the child's stdout, then discards the rest unread. */
function announced(child: ChildProcess, stderr: () => string) {
  return new Promise<Announcement>((resolve, reject) => {
    let pending = '';
    const fail = (message: string) => {
      cleanup();
      reject(new Error(`${message}\n${stderr()}`));
    };
    const onData = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      const found = lines.map(announcementOf).find((value) => value !== undefined);
      if (found === undefined) return;
      cleanup();
      child.stdout?.resume();
      resolve(found);
    };
    const onExit = (code: number | null) => fail(`server exited (code ${code}) before listening`);
    const onError = (error: Error) => fail(`server could not be started: ${error.message}`);
    const timer = setTimeout(
      () => fail(`server did not listen within ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

async function startServer(file: string, cpuProfileDir: string | undefined): Promise<Server> {
  const profiling = cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : [];
  const child = spawn(process.execPath, [...profiling, '--import', TSX_LOADER, file], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    // stdin stays open and unused: the server takes its end as the bench having died.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  try {
    return { announced: await announced(child, () => stderr), stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

async function withServer<T>(server: Promise<Server>, work: (announced: Announcement) => Promise<T>) {
  const { announced: info, stop } = await server;
  try {
    return await work(info);
  } finally {
    await stop();
  }
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

const statusCodes = (result: LoadResult) =>
  Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]));

/** One probe request (must be 201), a warm-up whose numbers are thrown away, then the real run. */
async function rate(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: ApplianceOrdersBenchOptions,
): Promise<OrderRateMeasurement> {
  const allHeaders = { ...headers, 'content-type': 'application/json' };
  const probe = await fetch(url, {
    method: 'POST',
    headers: allHeaders,
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await probe.text();
  if (probe.status !== 201) throw new Error(`POST ${url} answered ${probe.status} before the run: ${text}`);
  const base = { url, method: 'POST' as const, headers: allHeaders, body, connections: options.connections };
  await autocannon({ ...base, pipelining: 1, duration: WARMUP_SECONDS });
  const result = await autocannon({ ...base, pipelining: 1, duration: options.duration });
  return {
    requests_per_sec: round(result.requests.mean, 1),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    status_codes: statusCodes(result),
  };
}

async function pinToken(base: string) {
  const response = await fetch(`${base}/v1/auth/login/pin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(PIN_LOGIN),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = (await response.json()) as { status?: { type?: string; access_token?: string } };
  const token = body.status?.access_token;
  if (!response.ok || !token)
    throw new Error(`PIN login answered ${response.status}: ${JSON.stringify(body)}`);
  return token;
}

async function measureAppliance(info: Announcement, options: ApplianceOrdersBenchOptions) {
  const base = `http://127.0.0.1:${info.port}`;
  const menuItemId = info.menu_item_id;
  if (typeof menuItemId !== 'string') throw new Error('the appliance server announced no menu_item_id');
  const token = await pinToken(base);
  const body = JSON.stringify({ order_type: 'takeout', items: [{ menu_item_id: menuItemId, quantity: 2 }] });
  return rate(`${base}/v1/commerce/orders`, { authorization: `Bearer ${token}` }, body, options);
}

function problemsOf(runs: Record<string, OrderRateMeasurement>) {
  return Object.entries(runs).flatMap(([name, run]) => [
    ...(run.non2xx > 0 ? [`${name}: ${run.non2xx} non-2xx responses`] : []),
    ...(run.errors > 0 ? [`${name}: ${run.errors} errors or timeouts`] : []),
  ]);
}

/** Runs the servers one at a time, each stopped before the next starts, whatever happens. */
export async function runApplianceOrdersBench(
  options: ApplianceOrdersBenchOptions,
): Promise<ApplianceOrdersReport> {
  const loadBefore = loadavg()[0] ?? 0;
  process.on('exit', signalAll);
  try {
    const bare = await withServer(startServer(SERVERS.bare, options.cpuProfileDir), (info) =>
      rate(`http://127.0.0.1:${info.port}/orders`, {}, '{}', options),
    );
    const appliance = await withServer(startServer(SERVERS.appliance, options.cpuProfileDir), (info) =>
      measureAppliance(info, options),
    );
    const problems = problemsOf({ bare, appliance });
    const ratio = round(appliance.requests_per_sec / bare.requests_per_sec, 3);
    const valid = problems.length === 0;
    return {
      name: 'appliance-orders',
      at: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model ?? 'unknown',
        node: process.version,
        load_1m: { before: round(loadBefore, 2), after: round(loadavg()[0] ?? 0, 2) },
      },
      settings: { duration: options.duration, connections: options.connections, warmup: WARMUP_SECONDS },
      valid,
      problems,
      bare,
      appliance,
      ratio,
      goal: {
        ratio_at_least: GOAL_RATIO,
        p99_under_ms: GOAL_P99_MS,
        met: valid && ratio >= GOAL_RATIO && appliance.latency_p99_ms < GOAL_P99_MS,
      },
    };
  } finally {
    process.off('exit', signalAll);
  }
}

export function summarizeApplianceOrders(report: ApplianceOrdersReport): string[] {
  const line = (label: string, run: OrderRateMeasurement) =>
    `${label.padEnd(28)} ${String(run.requests_per_sec).padStart(9)} orders/s  p50 ${run.latency_p50_ms} ms  p99 ${run.latency_p99_ms} ms`;
  return [
    `appliance-orders: ${report.settings.duration} s per run, ${report.settings.connections} connections, ${report.machine.cpus} cpus, node ${report.machine.node}, load ${report.machine.load_1m.before} -> ${report.machine.load_1m.after}`,
    line('bare POST /orders', report.bare),
    line('POST /v1/commerce/orders', report.appliance),
    `ratio appliance/bare ${report.ratio}; goal >= ${report.goal.ratio_at_least} and p99 < ${report.goal.p99_under_ms} ms: ${report.goal.met ? 'met' : 'NOT met'}`,
    ...(report.valid ? [] : [`INVALID run: ${report.problems.join('; ')}`]),
  ];
}
