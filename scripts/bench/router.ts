/**
 * The edge router's cost: the gateway alone, then three proxies in front of it on the same
 * authenticated routes: a bare Node proxy on undici (router/bare-proxy.ts: what Node and a stock
 * client cost before any rule), nginx with the router's rules (router/nginx.ts, what a user would
 * pick instead) and the router, each in its own process, the Node ones compiled as in production.
 * Per side, the rate at saturation (autocannon, N connections) with the CPU each process spent per
 * request, and the latency of one request at a time (microsecond timer), whose p50 difference is
 * what the hop adds.
 */
import { fileURLToPath } from 'node:url';
import { bundle } from '../build.ts';
import { signalAll, startServer } from './lib/children.ts';
import { WARMUP_SECONDS } from './lib/load.ts';
import { codeVersion, machineSampler } from './lib/report.ts';
import {
  accessToken,
  CLIENT_ADDRESSES,
  childRunning,
  latency,
  medianSide,
  type RateMeasurement,
  rate,
  type SidePids,
  TENANT_HOST,
} from './router/measure.ts';
import { NGINX_MISSING, type Nginx, nginxVersion, startNginx } from './router/nginx.ts';
import {
  type Measured,
  type NginxInfo,
  type Round,
  type RouterReport,
  type RouterSettings,
  routerReport,
  SIDES,
  type SideName,
} from './router/report.ts';

export { type RouterReport, summarizeRouter } from './router/report.ts';

export interface RouterBenchOptions {
  duration: number;
  connections: number;
  cpuProfileDir?: string | undefined;
  /** One round, 1,000 one-at-a-time requests, at most 5 s per rate. */
  quick?: boolean | undefined;
}

const SERVERS = {
  cloud: fileURLToPath(new URL('./servers/cloud.ts', import.meta.url)),
  edge: fileURLToPath(new URL('./router/edge-server.ts', import.meta.url)),
  bare: fileURLToPath(new URL('./router/bare-proxy.ts', import.meta.url)),
};
// Run compiled, by Node alone, as a deployment runs them (`npm run build`): no TypeScript loader.
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
const SERVICE_DOMAIN = 'localhost';
const NGINX_WORKERS = 1;

function settingsOf(options: RouterBenchOptions): RouterSettings {
  return {
    duration: options.quick ? Math.min(options.duration, 5) : options.duration,
    connections: options.connections,
    warmup: WARMUP_SECONDS,
    rounds: options.quick ? 1 : 3,
    latency_requests: options.quick ? 1000 : 5000,
    client_addresses: CLIENT_ADDRESSES,
  };
}

interface Target {
  url: string;
  pids: SidePids;
}

/**
 * The sides in turns, each round, each figure the median of its rounds: others sharing the machine
 * (its load is in the report) then weigh on every side alike, not on whichever ran last.
 */
async function measureInRounds(
  targets: Partial<Record<SideName, Target>>,
  path: string,
  token: string,
  settings: RouterSettings,
) {
  const sides = SIDES.filter((side) => targets[side]);
  const rounds: Round[] = [];
  for (let n = 0; n < settings.rounds; n++) {
    const rates = new Map<SideName, RateMeasurement>();
    for (const side of sides) {
      const { url, pids } = targets[side]!;
      rates.set(side, await rate(`${url}${path}`, token, settings.connections, settings.duration, pids));
    }
    const round: Round = {};
    for (const side of sides) {
      const url = `${targets[side]!.url}${path}`;
      round[side] = { rate: rates.get(side)!, latency: await latency(url, token, settings.latency_requests) };
    }
    rounds.push(round);
  }
  const medians = Object.fromEntries(sides.map((side) => [side, medianSide(rounds.map((r) => r[side]!))]));
  return { rounds, medians };
}

async function startNginxIfInstalled(gateway: URL) {
  if (nginxVersion() === undefined) return undefined;
  return startNginx(gateway, SERVICE_DOMAIN);
}

function nginxInfo(nginx: Nginx | undefined): NginxInfo {
  if (!nginx) return { version: null, missing: NGINX_MISSING, worker_processes: NGINX_WORKERS };
  return { version: nginx.version, worker_processes: NGINX_WORKERS, config: nginx.config };
}

/** Starts the gateway, then the proxies in front of it; stops them all whatever happens. */
async function withServers<T>(
  options: RouterBenchOptions,
  work: (targets: Partial<Record<SideName, Target>>, nginx: Nginx | undefined) => Promise<T>,
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
  const stops = [() => cloud.stop()];
  try {
    const edge = await start(COMPILED.edge, { GATEWAY_URL: gatewayUrl });
    stops.push(() => edge.stop());
    const bare = await start(COMPILED.bare, { GATEWAY_URL: gatewayUrl });
    stops.push(() => bare.stop());
    const nginx = await startNginxIfInstalled(new URL(gatewayUrl));
    if (nginx) stops.push(() => nginx.stop());
    const at = (port: number) => `http://127.0.0.1:${port}`;
    const gateway = childRunning(COMPILED.cloud);
    const targets: Partial<Record<SideName, Target>> = {
      gateway: { url: gatewayUrl, pids: { proxy: [], gateway } },
      bare_proxy: { url: at(bare.announced.port), pids: { proxy: childRunning(COMPILED.bare), gateway } },
      router: { url: at(edge.announced.port), pids: { proxy: childRunning(COMPILED.edge), gateway } },
    };
    if (nginx) targets.nginx = { url: at(nginx.port), pids: { proxy: nginx.workerPids, gateway } };
    return await work(targets, nginx);
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

export async function runRouterBench(options: RouterBenchOptions): Promise<RouterReport> {
  const machine = machineSampler();
  const settings = settingsOf(options);
  process.on('exit', signalAll);
  try {
    return await withServers(options, async (targets, nginx) => {
      const token = await accessToken(targets.gateway!.url);
      const measured: Measured[] = [];
      for (const { name, path } of ENDPOINTS)
        measured.push({ name, path, ...(await measureInRounds(targets, path, token, settings)) });
      const base = {
        name: 'router' as const,
        at: new Date().toISOString(),
        machine: machine(),
        code: codeVersion(),
        settings,
        nginx: nginxInfo(nginx),
      };
      return routerReport(base, measured, TENANT_HOST);
    });
  } finally {
    process.off('exit', signalAll);
  }
}
