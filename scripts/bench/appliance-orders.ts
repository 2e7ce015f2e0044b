import { fileURLToPath } from 'node:url';
import { type Announcement, signalAll, startServer, withServer } from './lib/children.ts';
import { load, problemsOf, round, statusCodes, WARMUP_SECONDS } from './lib/load.ts';
import { type CodeVersion, codeVersion, type Goal, type MachineInfo, machineSampler } from './lib/report.ts';

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
  machine: MachineInfo;
  settings: { duration: number; connections: number; warmup: number };
  valid: boolean;
  problems: string[];
  bare: OrderRateMeasurement;
  appliance: OrderRateMeasurement;
  ratio: number;
  goal: { ratio_at_least: number; p99_under_ms: number; met: boolean };
  goals: Goal[];
  code: CodeVersion;
}

const GOAL_RATIO = 0.6;
const GOAL_P99_MS = 20;
const REQUEST_TIMEOUT_MS = 10_000;
// Seeded by servers/appliance.ts.
const PIN_LOGIN = { identifier: 'bench', pin: '135790' };

const SERVERS = {
  bare: fileURLToPath(new URL('./servers/bare-orders.ts', import.meta.url)),
  appliance: fileURLToPath(new URL('./servers/appliance.ts', import.meta.url)),
};

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
  const result = await load(base, options.duration);
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

/** Runs the servers one at a time, each stopped before the next starts, whatever happens. */
export async function runApplianceOrdersBench(
  options: ApplianceOrdersBenchOptions,
): Promise<ApplianceOrdersReport> {
  const server = (file: string) =>
    startServer({ file, env: { LOG_LEVEL: 'warn' }, cpuProfileDir: options.cpuProfileDir });
  const machine = machineSampler();
  process.on('exit', signalAll);
  try {
    const bare = await withServer(server(SERVERS.bare), (info) =>
      rate(`http://127.0.0.1:${info.port}/orders`, {}, '{}', options),
    );
    const appliance = await withServer(server(SERVERS.appliance), (info) => measureAppliance(info, options));
    const problems = problemsOf({ bare, appliance });
    const ratio = round(appliance.requests_per_sec / bare.requests_per_sec, 3);
    const valid = problems.length === 0;
    return {
      name: 'appliance-orders',
      at: new Date().toISOString(),
      machine: machine(),
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
      goals: [
        {
          subject: 'appliance',
          measure: 'orders rate / bare',
          target: `>= ${GOAL_RATIO}`,
          value: ratio,
          met: valid && ratio >= GOAL_RATIO,
          judged: valid,
        },
        {
          subject: 'appliance',
          measure: 'p99_ms',
          target: `< ${GOAL_P99_MS}`,
          value: appliance.latency_p99_ms,
          met: valid && appliance.latency_p99_ms < GOAL_P99_MS,
          judged: valid,
        },
      ],
      code: codeVersion(),
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
