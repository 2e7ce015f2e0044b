/**
 * The edge router's cost: the gateway alone, a bare proxy (router/bare-proxy.ts, the floor any Node
 * proxy starts from) and the router, the last two in front of the gateway, each compiled and in its
 * own process as in production, on the same authenticated route (GET /api/v1/chat/config: a
 * session check and a small JSON answer). Per side, the rate at saturation (autocannon, N
 * connections) and the latency of one request at a time (microsecond timer), whose p50 difference
 * is what the hop adds. Every request carries its own CF-Connecting-IP from a pool of 50,000, so
 * the limiter does its real work (a window per client) at its spec'd 100 per minute without
 * refusing any: at most a few requests per address per minute.
 */
import { fileURLToPath } from 'node:url';
import { bundle } from '../build.ts';
import { signalAll, startServer } from './lib/children.ts';
import { load, problemsOf, round, statusCodes, WARMUP_SECONDS } from './lib/load.ts';
import {
  type CodeVersion,
  codeVersion,
  type Goal,
  goalLine,
  goalsMetLine,
  judgeGoals,
  type MachineInfo,
  machineSampler,
} from './lib/report.ts';
import { type LatencyMeasurement, sequentialLatency } from './router/latency.ts';
import { BENCH_USER } from './servers/accounts.ts';

export interface RouterBenchOptions {
  duration: number;
  connections: number;
  cpuProfileDir?: string | undefined;
}

interface RateMeasurement {
  requests_per_sec: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non2xx: number;
  errors: number;
  status_codes: Record<string, number>;
}

interface Side {
  rate: RateMeasurement;
  latency: LatencyMeasurement;
}

export interface RouterReport {
  name: 'router';
  at: string;
  machine: MachineInfo;
  code: CodeVersion;
  settings: {
    duration: number;
    connections: number;
    warmup: number;
    rounds: number;
    latency_requests: number;
    client_addresses: number;
  };
  valid: boolean;
  problems: string[];
  endpoints: EndpointReport[];
  goals: Goal[];
}

export interface EndpointReport {
  name: string;
  endpoint: string;
  /** The median round of each side (by rate; by p50 for the one-at-a-time latency). */
  gateway: Side;
  /** The least a Node proxy does (router/bare-proxy.ts): the floor for the router's figures. */
  bare_proxy: Side;
  router: Side;
  rounds: Round[];
  bare_proxy_rate_ratio: number;
  router_to_bare_proxy_rate_ratio: number;
  added_latency_p50_ms: number;
  added_latency_p99_ms: number;
  rate_ratio: number;
}

const SERVERS = {
  cloud: fileURLToPath(new URL('./servers/cloud.ts', import.meta.url)),
  edge: fileURLToPath(new URL('./router/edge-server.ts', import.meta.url)),
  bare: fileURLToPath(new URL('./router/bare-proxy.ts', import.meta.url)),
};
// Both run compiled, by Node alone, as a deployment runs them (`npm run build`): no TypeScript loader.
const COMPILED = {
  cloud: fileURLToPath(new URL('../../dist/bench/router-cloud.mjs', import.meta.url)),
  edge: fileURLToPath(new URL('../../dist/bench/router-edge.mjs', import.meta.url)),
  bare: fileURLToPath(new URL('../../dist/bench/router-bare-proxy.mjs', import.meta.url)),
};
/**
 * Two routes: the gateway's cheapest authenticated one (a session check and a constant answer,
 * about 80 µs of CPU), where a proxy's own cost weighs most, and a typical store read (a session
 * check and a page of the caller's chat channels from the database). The goals are judged on each.
 */
const ENDPOINTS = [
  { name: 'cheapest route', path: '/api/v1/chat/config' },
  { name: 'store read', path: '/api/v1/chat/channels?limit=50' },
] as const;
const TENANT_HOST = 'bench.localhost';
const CLIENT_ADDRESSES = 50_000;
const LATENCY_REQUESTS = 5000;
const ROUNDS = 3;

const addressOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

async function accessToken(base: string) {
  const response = await fetch(`${base}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BENCH_USER),
  });
  const body = (await response.json()) as { status?: { access_token?: string } };
  if (!response.ok || !body.status?.access_token) throw new Error(`login answered ${response.status}`);
  return body.status.access_token;
}

/** Each request its own client address, round the pool. */
function distinctClients() {
  let next = 0;
  return [
    {
      setupRequest(request: { headers: Record<string, string> }) {
        request.headers['cf-connecting-ip'] = addressOf(next++ % CLIENT_ADDRESSES);
        return request;
      },
    },
  ];
}

async function rate(url: string, token: string, options: RouterBenchOptions): Promise<RateMeasurement> {
  const headers = { authorization: `Bearer ${token}`, host: TENANT_HOST };
  const result = await load(
    { url, headers, connections: options.connections, requests: distinctClients() },
    options.duration,
  );
  return {
    requests_per_sec: round(result.requests.mean, 1),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    status_codes: statusCodes(result),
  };
}

function latency(url: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, host: TENANT_HOST };
  return sequentialLatency(
    url,
    (n) => ({ ...headers, 'cf-connecting-ip': addressOf((n * 7919) % CLIENT_ADDRESSES) }),
    LATENCY_REQUESTS,
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The round whose rate is the median of the rounds (one real run, not a blend), and likewise for latency. */
function medianSide(rounds: Side[]): Side {
  const rates = rounds.map((side) => side.rate.requests_per_sec);
  const p50s = rounds.map((side) => side.latency.p50_ms);
  return {
    rate: rounds[rates.indexOf(median(rates))]!.rate,
    latency: rounds[p50s.indexOf(median(p50s))]!.latency,
  };
}

const SIDES = ['gateway', 'bare_proxy', 'router'] as const;
type SideName = (typeof SIDES)[number];
type Round = Record<SideName, Side>;

/**
 * The sides in turns, ROUNDS times, each figure the median of its rounds: others sharing the
 * machine (its load is in the report) then weigh on every side alike, not on whichever ran last.
 */
async function measureInRounds(urls: Record<SideName, string>, token: string, options: RouterBenchOptions) {
  const rounds: Round[] = [];
  for (let n = 0; n < ROUNDS; n++) {
    const rates = new Map<SideName, RateMeasurement>();
    for (const side of SIDES) rates.set(side, await rate(urls[side], token, options));
    const round = {} as Round;
    for (const side of SIDES)
      round[side] = { rate: rates.get(side)!, latency: await latency(urls[side], token) };
    rounds.push(round);
  }
  const medianOf = (side: SideName) => medianSide(rounds.map((r) => r[side]));
  return { rounds, gateway: medianOf('gateway'), bare: medianOf('bare_proxy'), router: medianOf('router') };
}

/** Starts the compiled servers: the gateway, then the router and the bare proxy in front of it. */
async function withServers<T>(
  options: RouterBenchOptions,
  work: (urls: Record<SideName, string>, gateway: string) => Promise<T>,
) {
  const start = (file: string, env: Record<string, string>) =>
    startServer({
      file,
      compiled: true,
      env: { LOG_LEVEL: 'warn', ...env },
      cpuProfileDir: options.cpuProfileDir,
      keys: ['port'],
    });
  for (const name of ['cloud', 'edge', 'bare'] as const) await bundle(SERVERS[name], COMPILED[name]);
  const cloud = await start(COMPILED.cloud, {});
  const gatewayUrl = `http://127.0.0.1:${cloud.announced.port}`;
  const started = [cloud];
  try {
    const edge = await start(COMPILED.edge, { GATEWAY_URL: gatewayUrl });
    started.push(edge);
    const bare = await start(COMPILED.bare, { GATEWAY_URL: gatewayUrl });
    started.push(bare);
    const at = (port: number) => `http://127.0.0.1:${port}`;
    return await work(
      {
        gateway: at(cloud.announced.port),
        bare_proxy: at(bare.announced.port),
        router: at(edge.announced.port),
      },
      gatewayUrl,
    );
  } finally {
    for (const server of started.reverse()) await server.stop();
  }
}

export async function runRouterBench(options: RouterBenchOptions): Promise<RouterReport> {
  const machine = machineSampler();
  process.on('exit', signalAll);
  try {
    return await withServers(options, async (origins, gatewayUrl) => {
      const token = await accessToken(gatewayUrl);
      const measured = [];
      for (const { name, path } of ENDPOINTS) {
        const urls = Object.fromEntries(SIDES.map((side) => [side, `${origins[side]}${path}`])) as Record<
          SideName,
          string
        >;
        measured.push({ name, path, ...(await measureInRounds(urls, token, options)) });
      }
      return report(options, measured, machine);
    });
  } finally {
    process.off('exit', signalAll);
  }
}

type Measured = Awaited<ReturnType<typeof measureInRounds>> & { name: string; path: string };

function endpointReport({ name, path, rounds, gateway, bare, router }: Measured): EndpointReport {
  return {
    name,
    endpoint: `GET ${path} (bearer; Host ${TENANT_HOST} through the router)`,
    gateway,
    bare_proxy: bare,
    router,
    rounds,
    bare_proxy_rate_ratio: round(bare.rate.requests_per_sec / gateway.rate.requests_per_sec, 3),
    router_to_bare_proxy_rate_ratio: round(router.rate.requests_per_sec / bare.rate.requests_per_sec, 3),
    added_latency_p50_ms: round(router.latency.p50_ms - gateway.latency.p50_ms, 3),
    added_latency_p99_ms: round(router.latency.p99_ms - gateway.latency.p99_ms, 3),
    rate_ratio: round(router.rate.requests_per_sec / gateway.rate.requests_per_sec, 3),
  };
}

function problemsOfEndpoint({ name, rounds }: Measured) {
  return rounds.flatMap((round, n) => [
    ...problemsOf(
      Object.fromEntries(SIDES.map((side) => [`${name}: ${side} round ${n + 1}`, round[side].rate])),
    ),
    ...SIDES.flatMap((side) =>
      round[side].latency.non2xx > 0
        ? [`${name}: ${side} latency round ${n + 1}: ${round[side].latency.non2xx} non-2xx`]
        : [],
    ),
  ]);
}

function report(options: RouterBenchOptions, measured: Measured[], machine: () => MachineInfo): RouterReport {
  const problems = measured.flatMap(problemsOfEndpoint);
  const endpoints = measured.map(endpointReport);
  const valid = problems.length === 0;
  const goals = judgeGoals(
    Object.fromEntries(endpoints.map((e) => [`router (${e.name})`, { ...e, valid }])),
    [
      {
        measure: 'added_latency_p50_ms',
        target: '< 1',
        value: (r) => r.added_latency_p50_ms,
        met: (v) => v < 1,
      },
      { measure: 'rate_ratio', target: '>= 0.7', value: (r) => r.rate_ratio, met: (v) => v >= 0.7 },
    ],
  );
  return {
    name: 'router',
    at: new Date().toISOString(),
    machine: machine(),
    code: codeVersion(),
    settings: {
      duration: options.duration,
      connections: options.connections,
      warmup: WARMUP_SECONDS,
      rounds: ROUNDS,
      latency_requests: LATENCY_REQUESTS,
      client_addresses: CLIENT_ADDRESSES,
    },
    valid,
    problems,
    endpoints,
    goals,
  };
}

function summarizeEndpoint(e: EndpointReport): string[] {
  const line = (label: string, side: Side) =>
    `${label.padEnd(22)} ${String(side.rate.requests_per_sec).padStart(9)} req/s  p50 ${side.rate.latency_p50_ms} ms  p99 ${side.rate.latency_p99_ms} ms  | one at a time: p50 ${side.latency.p50_ms} ms  p99 ${side.latency.p99_ms} ms`;
  return [
    `${e.name}: ${e.endpoint}`,
    ...e.rounds.map(
      (round, n) =>
        `  round ${n + 1}: req/s gateway ${round.gateway.rate.requests_per_sec}, bare proxy ${round.bare_proxy.rate.requests_per_sec}, router ${round.router.rate.requests_per_sec}; one at a time p50 ${round.gateway.latency.p50_ms} / ${round.bare_proxy.latency.p50_ms} / ${round.router.latency.p50_ms} ms`,
    ),
    line('  gateway alone', e.gateway),
    line('  bare proxy -> gateway', e.bare_proxy),
    line('  router -> gateway', e.router),
    `  bare proxy keeps ${e.bare_proxy_rate_ratio} of the gateway's rate; the router ${e.router_to_bare_proxy_rate_ratio} of the bare proxy's`,
    `  added latency p50 ${e.added_latency_p50_ms} ms (p99 ${e.added_latency_p99_ms} ms); rate ratio ${e.rate_ratio}`,
  ];
}

export function summarizeRouter(report: RouterReport): string[] {
  return [
    `router: ${report.settings.rounds} rounds of ${report.settings.duration} s per side, ${report.settings.connections} connections, ${report.machine.cpus} cpus, node ${report.machine.node}, load ${report.machine.load_1m.before} -> ${report.machine.load_1m.after}`,
    ...report.endpoints.flatMap(summarizeEndpoint),
    ...report.goals.map(goalLine),
    goalsMetLine(report.goals),
    ...(report.valid ? [] : [`INVALID run: ${report.problems.join('; ')}`]),
  ];
}
