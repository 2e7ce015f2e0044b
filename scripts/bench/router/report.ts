/** The router bench's report: per route the sides' medians and ratios, the goals, and its summary. */
import { round } from '../lib/load.ts';
import {
  type CodeVersion,
  type Goal,
  goalLine,
  goalsMetLine,
  judgeGoals,
  type MachineInfo,
} from '../lib/report.ts';
import type { Side } from './measure.ts';

export const SIDES = ['gateway', 'bare_proxy', 'nginx', 'router'] as const;
export type SideName = (typeof SIDES)[number];
export type Round = Partial<Record<SideName, Side>>;

export interface Measured {
  name: string;
  path: string;
  rounds: Round[];
  /** Each side's median round; nginx absent when it is not installed. */
  medians: Partial<Record<SideName, Side>>;
}

export interface RouterSettings {
  duration: number;
  connections: number;
  warmup: number;
  rounds: number;
  latency_requests: number;
  client_addresses: number;
}

export interface NginxInfo {
  /** `nginx/1.22.1`, or null with `missing` saying how to install it. */
  version: string | null;
  missing?: string;
  worker_processes: number;
  config?: string;
}

export interface EndpointReport {
  name: string;
  endpoint: string;
  gateway: Side;
  /** A bare Node proxy on undici (router/bare-proxy.ts): Node's cost before any rule. */
  bare_proxy: Side;
  /** What a user would pick instead (router/nginx.ts), with the router's rules; null when not installed. */
  nginx: Side | null;
  router: Side;
  rounds: Round[];
  bare_proxy_rate_ratio: number;
  nginx_rate_ratio: number | null;
  router_to_bare_proxy_rate_ratio: number;
  router_to_nginx_rate_ratio: number | null;
  /** The rate ratio the router must reach: 0.7, or 0.8 × nginx's ratio when that is lower. */
  rate_ratio_target: number;
  nginx_added_latency_p50_ms: number | null;
  added_latency_p50_ms: number;
  added_latency_p99_ms: number;
  rate_ratio: number;
}

export interface RouterReport {
  name: 'router';
  at: string;
  machine: MachineInfo;
  code: CodeVersion;
  settings: RouterSettings;
  nginx: NginxInfo;
  valid: boolean;
  problems: string[];
  endpoints: EndpointReport[];
  goals: Goal[];
}

const GATEWAY_SHARE = 0.7;
const NGINX_SHARE = 0.8;
const ratio = (a: number, b: number) => round(a / b, 3);

function endpointReport({ name, path, rounds, medians }: Measured, host: string): EndpointReport {
  const { gateway, bare_proxy: bare, nginx, router } = medians as Required<Measured['medians']>;
  const nginxRatio = nginx ? ratio(nginx.rate.requests_per_sec, gateway.rate.requests_per_sec) : null;
  return {
    name,
    endpoint: `GET ${path} (bearer; Host ${host} through the proxies)`,
    gateway,
    bare_proxy: bare,
    nginx: nginx ?? null,
    router,
    rounds,
    bare_proxy_rate_ratio: ratio(bare.rate.requests_per_sec, gateway.rate.requests_per_sec),
    nginx_rate_ratio: nginxRatio,
    router_to_bare_proxy_rate_ratio: ratio(router.rate.requests_per_sec, bare.rate.requests_per_sec),
    router_to_nginx_rate_ratio: nginx
      ? ratio(router.rate.requests_per_sec, nginx.rate.requests_per_sec)
      : null,
    rate_ratio_target: round(Math.min(GATEWAY_SHARE, NGINX_SHARE * (nginxRatio ?? 1)), 3),
    nginx_added_latency_p50_ms: nginx ? round(nginx.latency.p50_ms - gateway.latency.p50_ms, 3) : null,
    added_latency_p50_ms: round(router.latency.p50_ms - gateway.latency.p50_ms, 3),
    added_latency_p99_ms: round(router.latency.p99_ms - gateway.latency.p99_ms, 3),
    rate_ratio: ratio(router.rate.requests_per_sec, gateway.rate.requests_per_sec),
  };
}

function problemsOfEndpoint({ name, rounds }: Measured) {
  return rounds.flatMap((round, n) =>
    Object.entries(round).flatMap(([side, { rate, latency }]) => [
      ...(rate.non2xx > 0 ? [`${name}: ${side} round ${n + 1}: ${rate.non2xx} non-2xx responses`] : []),
      ...(rate.errors > 0 ? [`${name}: ${side} round ${n + 1}: ${rate.errors} errors or timeouts`] : []),
      ...(latency.non2xx > 0 ? [`${name}: ${side} latency round ${n + 1}: ${latency.non2xx} non-2xx`] : []),
    ]),
  );
}

function rateTarget(e: EndpointReport) {
  return e.nginx_rate_ratio === null
    ? `>= ${GATEWAY_SHARE} (nginx not measured)`
    : `>= min(${GATEWAY_SHARE}, ${NGINX_SHARE} x nginx's ${e.nginx_rate_ratio}) = ${e.rate_ratio_target}`;
}

/** Per route: the added p50, and the rate kept against the gateway's or nginx's, whichever asks less. */
function goalsOf(endpoints: EndpointReport[], valid: boolean) {
  return endpoints.flatMap((e) =>
    judgeGoals({ [`router (${e.name})`]: { ...e, valid } }, [
      {
        measure: 'added_latency_p50_ms',
        target: '< 1',
        value: (r) => r.added_latency_p50_ms,
        met: (v) => v < 1,
      },
      {
        measure: 'rate_ratio',
        target: rateTarget(e),
        value: (r) => r.rate_ratio,
        met: (v, r) => v >= r.rate_ratio_target,
      },
    ]),
  );
}

export function routerReport(
  base: Omit<RouterReport, 'valid' | 'problems' | 'endpoints' | 'goals'>,
  measured: Measured[],
  host: string,
): RouterReport {
  const problems = measured.flatMap(problemsOfEndpoint);
  const endpoints = measured.map((m) => endpointReport(m, host));
  const valid = problems.length === 0;
  return { ...base, valid, problems, endpoints, goals: goalsOf(endpoints, valid) };
}

const cpu = (side: Side) => {
  const { proxy, gateway } = side.rate.cpu_us_per_request;
  return `cpu/request ${proxy === null ? '' : `proxy ${proxy} µs, `}gateway ${gateway ?? '-'} µs`;
};

const LABELS: Record<SideName, string> = {
  gateway: 'gateway alone',
  bare_proxy: 'bare proxy -> gateway',
  nginx: 'nginx -> gateway',
  router: 'router -> gateway',
};

function summarizeEndpoint(e: EndpointReport): string[] {
  const line = (name: SideName, side: Side | null) =>
    side === null
      ? []
      : [
          `  ${LABELS[name].padEnd(22)} ${String(side.rate.requests_per_sec).padStart(9)} req/s  p50 ${side.rate.latency_p50_ms} ms  p99 ${side.rate.latency_p99_ms} ms  ${cpu(side)}  | one at a time: p50 ${side.latency.p50_ms} ms  p99 ${side.latency.p99_ms} ms`,
        ];
  const roundLine = (round: Round, n: number) =>
    `  round ${n + 1}: req/s ${SIDES.filter((s) => round[s])
      .map((s) => `${s} ${round[s]!.rate.requests_per_sec}`)
      .join(', ')}`;
  return [
    `${e.name}: ${e.endpoint}`,
    ...e.rounds.map(roundLine),
    ...SIDES.flatMap((name) => line(name, e[name])),
    `  rate kept of the gateway's: bare proxy ${e.bare_proxy_rate_ratio}, nginx ${e.nginx_rate_ratio ?? '-'}, router ${e.rate_ratio} (target ${e.rate_ratio_target}); router/nginx ${e.router_to_nginx_rate_ratio ?? '-'}, router/bare proxy ${e.router_to_bare_proxy_rate_ratio}`,
    `  added latency p50: router ${e.added_latency_p50_ms} ms (p99 ${e.added_latency_p99_ms} ms), nginx ${e.nginx_added_latency_p50_ms ?? '-'} ms`,
  ];
}

export function summarizeRouter(report: RouterReport): string[] {
  const { settings: s, machine: m } = report;
  return [
    `router: ${s.rounds} rounds of ${s.duration} s per side, ${s.connections} connections, ${m.cpus} cpus, node ${m.node}, ${report.nginx.version ?? 'no nginx'}, load ${m.load_1m.before} -> ${m.load_1m.after}`,
    ...(report.nginx.missing ? [report.nginx.missing] : []),
    ...report.endpoints.flatMap(summarizeEndpoint),
    ...report.goals.map(goalLine),
    goalsMetLine(report.goals),
    ...(report.valid ? [] : [`INVALID run: ${report.problems.join('; ')}`]),
  ];
}
