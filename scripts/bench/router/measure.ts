/**
 * One side's figures on one route: the rate at saturation (autocannon), the CPU each process of the
 * side spent per request meanwhile, and the latency of one request at a time. Every request carries
 * its own CF-Connecting-IP from a pool of 50,000, so a limiter does its real work (a window per
 * client) at 100 per minute without refusing any.
 */
import { readFileSync } from 'node:fs';
import { load, round, statusCodes } from '../lib/load.ts';
import { cpuSecondsOf } from '../mqtt/proc.ts';
import { BENCH_USER } from '../servers/accounts.ts';
import { type LatencyMeasurement, sequentialLatency } from './latency.ts';

export const TENANT_HOST = 'bench.localhost';
export const CLIENT_ADDRESSES = 50_000;

export interface RateMeasurement {
  requests_per_sec: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non2xx: number;
  errors: number;
  status_codes: Record<string, number>;
  /**
   * CPU time (user + system, µs) per request over the whole load run, warm-up included, of the
   * side's proxy (router, bare proxy, nginx's worker) and of the gateway behind it: what each
   * request costs, which a shared machine's load changes far less than the rate.
   */
  cpu_us_per_request: { proxy: number | null; gateway: number | null };
}

export interface Side {
  rate: RateMeasurement;
  latency: LatencyMeasurement;
}

/** The processes whose CPU a side spends: none of its own for the gateway alone. */
export interface SidePids {
  proxy: number[];
  gateway: number[];
}

const addressOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

export async function accessToken(base: string) {
  const response = await fetch(`${base}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BENCH_USER),
  });
  const body = (await response.json()) as { status?: { access_token?: string } };
  if (!response.ok || !body.status?.access_token) throw new Error(`login answered ${response.status}`);
  return body.status.access_token;
}

/** This process's child running `file` (the compiled servers), by its command line. */
export function childRunning(file: string) {
  const pid = process.pid;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
  const found = children.map(Number).find((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(file);
    } catch {
      return false;
    }
  });
  return found === undefined ? [] : [found];
}

const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);

/** Each request its own client address, round the pool; counts what it sent. */
function distinctClients() {
  const sent = { count: 0 };
  const requests = [
    {
      setupRequest(request: { headers: Record<string, string> }) {
        request.headers['cf-connecting-ip'] = addressOf(sent.count++ % CLIENT_ADDRESSES);
        return request;
      },
    },
  ];
  return { sent, requests };
}

export async function rate(
  url: string,
  token: string,
  connections: number,
  duration: number,
  pids: SidePids,
): Promise<RateMeasurement> {
  const headers = { authorization: `Bearer ${token}`, host: TENANT_HOST };
  const { sent, requests } = distinctClients();
  const before = { proxy: cpuOf(pids.proxy), gateway: cpuOf(pids.gateway) };
  const result = await load({ url, headers, connections, requests }, duration);
  const perRequest = (now: number, then: number, of: number[]) =>
    of.length === 0 || sent.count === 0 ? null : round(((now - then) * 1e6) / sent.count, 1);
  return {
    requests_per_sec: round(result.requests.mean, 1),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    status_codes: statusCodes(result),
    cpu_us_per_request: {
      proxy: perRequest(cpuOf(pids.proxy), before.proxy, pids.proxy),
      gateway: perRequest(cpuOf(pids.gateway), before.gateway, pids.gateway),
    },
  };
}

export function latency(url: string, token: string, requests: number) {
  const headers = { authorization: `Bearer ${token}`, host: TENANT_HOST };
  return sequentialLatency(
    url,
    (n) => ({ ...headers, 'cf-connecting-ip': addressOf((n * 7919) % CLIENT_ADDRESSES) }),
    requests,
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The round whose rate is the median of the rounds (one real run, not a blend), and likewise for latency. */
export function medianSide(rounds: Side[]): Side {
  const rates = rounds.map((side) => side.rate.requests_per_sec);
  const p50s = rounds.map((side) => side.latency.p50_ms);
  return {
    rate: rounds[rates.indexOf(median(rates))]!.rate,
    latency: rounds[p50s.indexOf(median(p50s))]!.latency,
  };
}
