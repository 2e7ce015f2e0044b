/** Load generation with autocannon: a warm-up run, then the measured one, and what to make of it. */
import { createRequire } from 'node:module';

export const WARMUP_SECONDS = 2;

// autocannon ships no type declarations; this is the part of its API used here.
export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  pipelining: number;
  duration: number;
  /** Called once per connection, e.g. to give each its own request body. */
  setupClient?: (client: { setBody(body: string): void }) => void;
  /** Called before each request, e.g. to give each its own header. */
  requests?: Array<{
    setupRequest(request: { headers: Record<string, string> }): { headers: Record<string, string> };
  }>;
}
export interface LoadResult {
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

/** A warm-up run (JIT, caches, connection set-up) whose numbers are thrown away, then the real one. */
export async function load(options: Omit<LoadOptions, 'duration' | 'pipelining'>, duration: number) {
  await autocannon({ ...options, pipelining: 1, duration: WARMUP_SECONDS });
  return autocannon({ ...options, pipelining: 1, duration });
}

export const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** How many responses had each status, so a failed run says what failed. */
export const statusCodes = (result: LoadResult) =>
  Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]));

export function problemsOf(runs: Record<string, { non2xx: number; errors: number }>) {
  return Object.entries(runs).flatMap(([name, run]) => [
    ...(run.non2xx > 0 ? [`${name}: ${run.non2xx} non-2xx responses`] : []),
    ...(run.errors > 0 ? [`${name}: ${run.errors} errors or timeouts`] : []),
  ]);
}
