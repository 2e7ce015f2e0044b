import { fileURLToPath } from 'node:url';
import { signalAll, startServer, withServer } from './lib/children.ts';
import { load, problemsOf, round, statusCodes, WARMUP_SECONDS } from './lib/load.ts';
import { type CodeVersion, codeVersion, type Goal, type MachineInfo, machineSampler } from './lib/report.ts';

export interface AuthBenchOptions {
  /** Seconds measured per endpoint, after the warm-up. */
  duration: number;
  /** Concurrent connections for the request-rate runs. */
  connections: number;
  /** When set, each cloud process writes a V8 CPU profile here as it exits. */
  cpuProfileDir?: string | undefined;
}

export interface RateMeasurement {
  requests_per_sec: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non2xx: number;
  errors: number;
  status_codes: Record<string, number>;
  body_bytes: number;
}

export interface LoginMeasurement {
  logins_per_sec: number;
  connections: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non2xx: number;
  errors: number;
  status_codes: Record<string, number>;
}

export interface AuthReport {
  name: 'auth';
  at: string;
  /** load_1m: the 1-minute load average before and after; above the cpu count, others shared the CPU. */
  machine: MachineInfo;
  settings: { duration: number; connections: number; warmup: number };
  valid: boolean;
  problems: string[];
  bare: RateMeasurement;
  me: RateMeasurement;
  me_with_request_logs: RateMeasurement;
  login: LoginMeasurement;
  ratio_me_to_bare: number;
  ratio_with_request_logs: number;
  goal: { ratio_at_least: number; met: boolean };
  goals: Goal[];
  code: CodeVersion;
}

// Seeded by servers/cloud.ts.
import { BENCH_STAFF_COUNT, BENCH_USER, benchStaff } from './servers/accounts.ts';

const GOAL_RATIO = 0.5;
// argon2id is CPU-bound by design: a few connections already saturate the server's core.
const LOGIN_CONNECTIONS = 4;
const REQUEST_TIMEOUT_MS = 10_000;

const SERVERS = {
  bare: fileURLToPath(new URL('./servers/bare.ts', import.meta.url)),
  cloud: fileURLToPath(new URL('./servers/cloud.ts', import.meta.url)),
};

async function rate(url: string, headers: Record<string, string>, options: AuthBenchOptions) {
  const probe = await fetch(url, { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const body = await probe.arrayBuffer();
  if (!probe.ok) throw new Error(`GET ${url} answered ${probe.status} before the run`);
  const result = await load({ url, headers, connections: options.connections }, options.duration);
  return {
    requests_per_sec: round(result.requests.mean, 1),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    status_codes: statusCodes(result),
    body_bytes: body.byteLength,
  };
}

async function accessToken(base: string) {
  const response = await fetch(`${base}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BENCH_USER),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = (await response.json()) as { status?: { type?: string; access_token?: string } };
  const token = body.status?.type === 'success' ? body.status.access_token : undefined;
  if (!response.ok || !token) throw new Error(`login answered ${response.status}: ${JSON.stringify(body)}`);
  return token;
}

async function measureMe(port: number, options: AuthBenchOptions) {
  const base = `http://127.0.0.1:${port}`;
  const token = await accessToken(base);
  return rate(`${base}/v1/auth/me`, { authorization: `Bearer ${token}` }, options);
}

/**
 * Each connection logs in as a staff member of its own, as terminals do: many logins to one
 * account at the same moment are throttled on purpose (each attempt counts until it succeeds).
 */
function ownAccountPerConnection() {
  let next = 0;
  return (client: { setBody(body: string): void }) => {
    client.setBody(JSON.stringify(benchStaff(next++ % BENCH_STAFF_COUNT)));
  };
}

async function measureLogin(port: number, duration: number): Promise<LoginMeasurement> {
  const result = await load(
    {
      url: `http://127.0.0.1:${port}/v1/auth/login`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(benchStaff(0)),
      connections: LOGIN_CONNECTIONS,
      setupClient: ownAccountPerConnection(),
    },
    duration,
  );
  return {
    logins_per_sec: round(result.requests.mean, 1),
    connections: LOGIN_CONNECTIONS,
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    status_codes: statusCodes(result),
  };
}

/** Runs the servers one at a time, each stopped before the next starts, whatever happens. */
export async function runAuthBench(options: AuthBenchOptions): Promise<AuthReport> {
  // The cloud prints JSON log lines to stdout too: only `{"port":N}` alone is its announcement.
  const cloud = (logLevel: string) =>
    startServer({
      file: SERVERS.cloud,
      env: { LOG_LEVEL: logLevel },
      cpuProfileDir: options.cpuProfileDir,
      keys: ['port'],
    });
  const machine = machineSampler();
  process.on('exit', signalAll);
  try {
    const bare = await withServer(startServer({ file: SERVERS.bare, keys: ['port'] }), ({ port }) =>
      rate(`http://127.0.0.1:${port}/bare`, {}, options),
    );
    const { me, login } = await withServer(cloud('warn'), async ({ port }) => ({
      me: await measureMe(port, options),
      login: await measureLogin(port, options.duration),
    }));
    const meWithLogs = await withServer(cloud('info'), ({ port }) => measureMe(port, options));
    return report(options, { bare, me, meWithLogs, login }, machine);
  } finally {
    process.off('exit', signalAll);
  }
}

function report(
  options: AuthBenchOptions,
  runs: { bare: RateMeasurement; me: RateMeasurement; meWithLogs: RateMeasurement; login: LoginMeasurement },
  machine: () => MachineInfo,
): AuthReport {
  const problems = problemsOf({
    bare: runs.bare,
    me: runs.me,
    me_with_request_logs: runs.meWithLogs,
    login: runs.login,
  });
  const ratio = round(runs.me.requests_per_sec / runs.bare.requests_per_sec, 3);
  return {
    name: 'auth',
    at: new Date().toISOString(),
    machine: machine(),
    settings: { duration: options.duration, connections: options.connections, warmup: WARMUP_SECONDS },
    valid: problems.length === 0,
    problems,
    bare: runs.bare,
    me: runs.me,
    me_with_request_logs: runs.meWithLogs,
    login: runs.login,
    ratio_me_to_bare: ratio,
    ratio_with_request_logs: round(runs.meWithLogs.requests_per_sec / runs.bare.requests_per_sec, 3),
    goal: { ratio_at_least: GOAL_RATIO, met: problems.length === 0 && ratio >= GOAL_RATIO },
    goals: [
      {
        subject: 'auth',
        measure: 'me/bare rate',
        target: `>= ${GOAL_RATIO}`,
        value: ratio,
        met: problems.length === 0 && ratio >= GOAL_RATIO,
        judged: problems.length === 0,
      },
    ],
    code: codeVersion(),
  };
}

export function summarizeAuth(report: AuthReport): string[] {
  const line = (label: string, run: RateMeasurement) =>
    `${label.padEnd(28)} ${String(run.requests_per_sec).padStart(9)} req/s  p50 ${run.latency_p50_ms} ms  p99 ${run.latency_p99_ms} ms`;
  return [
    `auth: ${report.settings.duration} s per run, ${report.settings.connections} connections, ${report.machine.cpus} cpus, node ${report.machine.node}, load ${report.machine.load_1m.before} -> ${report.machine.load_1m.after}`,
    line('bare GET /bare', report.bare),
    line('GET /v1/auth/me (warn)', report.me),
    line('GET /v1/auth/me (info logs)', report.me_with_request_logs),
    `${'POST /v1/auth/login'.padEnd(28)} ${String(report.login.logins_per_sec).padStart(9)} logins/s  p50 ${report.login.latency_p50_ms} ms  p99 ${report.login.latency_p99_ms} ms  (${report.login.connections} connections)`,
    `ratio me/bare ${report.ratio_me_to_bare} (with request logs ${report.ratio_with_request_logs}); goal >= ${report.goal.ratio_at_least}: ${report.goal.met ? 'met' : 'NOT met'}`,
    ...(report.valid ? [] : [`INVALID run: ${report.problems.join('; ')}`]),
  ];
}
