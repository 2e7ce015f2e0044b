/**
 * What surrounds each measure: the requests the cloud answered meanwhile (from its own /metrics, by
 * route and status, with the cloud's mean time per request), any non-2xx among them as a problem, and
 * with `--cpu-prof` a CPU profile of each process for that measure alone.
 */
import { join } from 'node:path';
import type { CloudControl } from './control.ts';
import type { SyncPlan } from './plan.ts';
import { startProfile } from './profile.ts';

export type Backend = 'sqlite' | 'pg';

export interface MeasureContext {
  backend: Backend;
  databaseUrl: string;
  /** PostgreSQL: the cloud's schema. */
  schema: string | undefined;
  cloudUrl: string;
  control: CloudControl;
  plan: SyncPlan;
  profileDir: string | undefined;
  /** Anything that makes the run invalid, as sentences. */
  problems: string[];
}

/** Sync requests the cloud answered during a measure, by `METHOD route status`. */
export interface CloudRequests {
  counts: Record<string, number>;
  /** The cloud's own mean time per request (from receiving it to answering), ms. */
  server_ms: Record<string, number>;
}

const SERIES = /^http_request_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/;

async function scrape(cloudUrl: string) {
  const text = await (await fetch(`${cloudUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const series = new Map<string, { sum: number; count: number }>();
  for (const line of text.split('\n')) {
    const match = SERIES.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!labels.route?.startsWith('/v1/sync')) continue;
    const key = `${labels.method} ${labels.route} ${labels.status_code}`;
    const entry = series.get(key) ?? { sum: 0, count: 0 };
    entry[match[1] as 'sum' | 'count'] = Number(match[3]);
    series.set(key, entry);
  }
  return series;
}

/** Pushes the cloud has answered so far, whatever their status. */
export async function pushesAnswered(cloudUrl: string) {
  let total = 0;
  for (const [key, { count }] of await scrape(cloudUrl))
    if (key.startsWith('POST /v1/sync/push ')) total += count;
  return total;
}

function difference(before: Awaited<ReturnType<typeof scrape>>, after: Awaited<ReturnType<typeof scrape>>) {
  const result: CloudRequests = { counts: {}, server_ms: {} };
  for (const [key, { sum, count }] of after) {
    const n = count - (before.get(key)?.count ?? 0);
    if (n <= 0) continue;
    result.counts[key] = n;
    result.server_ms[key] = Number((((sum - (before.get(key)?.sum ?? 0)) / n) * 1000).toFixed(2));
  }
  return result;
}

async function profiled<T>(context: MeasureContext, measure: string, work: () => Promise<T>) {
  const dir = context.profileDir;
  if (!dir) return work();
  const stopHere = await startProfile();
  await context.control.startProfile();
  try {
    return await work();
  } finally {
    const file = (side: string) => join(dir, `sync-${context.backend}-${measure}-${side}.cpuprofile`);
    await stopHere(file('appliance'));
    await context.control.stopProfile(file('cloud'));
  }
}

/** Runs one measure, and notes every sync request the cloud did not answer with a 2xx. */
export async function observed<T>(context: MeasureContext, measure: string, work: () => Promise<T>) {
  const before = await scrape(context.cloudUrl);
  const result = await profiled(context, measure, work);
  const cloud = difference(before, await scrape(context.cloudUrl));
  for (const [key, n] of Object.entries(cloud.counts)) {
    if (!/ 2\d\d$/.test(key)) context.problems.push(`${context.backend} ${measure}: ${n} × ${key}`);
  }
  return { result, cloud };
}
