/**
 * Load for the usage benchmark, from this process over HTTP (undici, keep-alive): single-record
 * posts for a fixed time, a replay of many records with duplicates through the batch endpoint, and
 * the time from a post to its record showing in the summary.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { percentile } from './usage-stats.ts';

export interface Target {
  url: string;
  token: string;
  subscriptionIds: string[];
}

const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

export async function signIn(url: string, credentials: { email: string; password: string }) {
  const response = await fetch(`${url}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  const body = (await response.json()) as { status?: { access_token?: string } };
  if (!body.status?.access_token) throw new Error(`sign-in failed: ${response.status}`);
  return body.status.access_token;
}

const record = (subscriptionId: string, metric: string, key: string, quantity: number, at: string) => ({
  subscription_id: subscriptionId,
  metric_name: metric,
  quantity,
  timestamp: at,
  idempotency_key: key,
});

export async function summary(target: Target, subscriptionId: string, metric: string) {
  const query = `metric_name=${metric}&start_time=2030-01-01T00:00:00Z&end_time=2031-01-01T00:00:00Z`;
  const response = await fetch(`${target.url}/v1/billing/subscriptions/${subscriptionId}/usage?${query}`, {
    headers: headers(target.token),
  });
  if (response.status !== 200) throw new Error(`summary answered ${response.status}`);
  return (await response.json()) as { total_quantity: number; record_count: number };
}

/**
 * Single-record posts from `connections` clients for `seconds`. One post in ten re-sends an earlier
 * record (the same key and quantity: a client retrying after a lost answer), often while the first
 * is still in flight on another connection. Afterwards the summary must count every key once, and
 * exactly one post of each key must have been answered 201.
 */
export async function singlePosts(target: Target, connections: number, seconds: number, metric: string) {
  const pool = new Pool(target.url, { connections, pipelining: 1 });
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const sent: Array<{ key: string; body: string }> = [];
  const quantities = new Map<string, number>();
  const acknowledged = new Set<string>();
  const subscriptionId = target.subscriptionIds[0]!;
  let posts = 0;
  function nextBody() {
    const i = posts++;
    // A re-send of one of the last 128 records: some still in flight, some just committed.
    if (i % 10 === 9 && sent.length > 0)
      return sent[sent.length - 1 - Math.floor(Math.random() * Math.min(sent.length, 128))]!;
    const key = `s-${i}-${randomUUID()}`;
    quantities.set(key, 1 + (i % 5));
    const body = JSON.stringify(record(subscriptionId, metric, key, 1 + (i % 5), '2030-06-01T00:00:00Z'));
    sent.push({ key, body });
    return sent.at(-1)!;
  }
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  async function client() {
    while (performance.now() < deadline) {
      const { key, body } = nextBody();
      const at = performance.now();
      const response = await pool.request({
        path: '/v1/billing/usage',
        method: 'POST',
        headers: headers(target.token),
        body,
      });
      await response.body.dump();
      latencies.push(performance.now() - at);
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
      if (response.statusCode === 200 || response.statusCode === 201) acknowledged.add(key);
    }
  }
  await Promise.all(Array.from({ length: connections }, client));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  const counted = await summary(target, subscriptionId, metric);
  const answered = (statuses[201] ?? 0) + (statuses[200] ?? 0);
  const expectedTotal = [...acknowledged].reduce((sum, key) => sum + quantities.get(key)!, 0);
  return {
    connections,
    seconds: Math.round(elapsed * 100) / 100,
    requests: latencies.length,
    resends: latencies.length - quantities.size,
    posts_per_sec: Math.round(answered / elapsed),
    created_per_sec: Math.round((statuses[201] ?? 0) / elapsed),
    latency_ms: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    statuses,
    summary: counted,
    expected: { record_count: acknowledged.size, total_quantity: expectedTotal },
    double_counts: counted.record_count - acknowledged.size,
    quantity_difference: counted.total_quantity - expectedTotal,
    /** Posts answered 201 beyond one per key: a repeat told it was new. */
    extra_created: (statuses[201] ?? 0) - acknowledged.size,
  };
}

/**
 * The gateway's own ceiling with the same client: GET /v1/auth/me, authenticated like a usage post
 * but with nothing to write. A single-record post can go no faster than this.
 */
export async function authCeiling(target: Target, connections: number, seconds: number) {
  const pool = new Pool(target.url, { connections, pipelining: 1 });
  let answered = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  async function client() {
    while (performance.now() < deadline) {
      const response = await pool.request({
        path: '/v1/auth/me',
        method: 'GET',
        headers: headers(target.token),
      });
      await response.body.dump();
      if (response.statusCode === 200) answered += 1;
    }
  }
  await Promise.all(Array.from({ length: connections }, client));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  return { connections, requests_per_sec: Math.round(answered / elapsed) };
}

/**
 * `total` records through POST /usage/batch (`batchSize` each, `concurrency` batches in flight), one
 * in ten repeating the key of an earlier record (often one still in flight in another batch).
 */
export async function replay(
  target: Target,
  options: { total: number; batchSize: number; concurrency: number; metric: string },
) {
  const subscriptionId = target.subscriptionIds[1]!;
  // A duplicate is a retry: the very record of an earlier key, sent again (often while the first
  // is still in flight in another batch).
  const originals: Array<ReturnType<typeof record>> = [];
  const records: Array<ReturnType<typeof record>> = [];
  for (let i = 0; i < options.total; i++) {
    if (i % 10 === 9) {
      records.push(originals[Math.floor(Math.random() * originals.length)]!);
      continue;
    }
    const at = new Date(Date.UTC(2030, 0, 1) + (i % 86_400) * 1000).toISOString();
    const original = record(subscriptionId, options.metric, `r-${i}-${randomUUID()}`, 1 + (i % 5), at);
    originals.push(original);
    records.push(original);
  }
  const quantities = new Map(originals.map((r) => [r.idempotency_key, r.quantity]));
  const expectedTotal = [...quantities.values()].reduce((a, b) => a + b, 0);
  const pool = new Pool(target.url, { connections: options.concurrency, pipelining: 1 });
  const outcomes = { created: 0, duplicate: 0, not_found: 0, failed_batches: 0 };
  let next = 0;
  const started = performance.now();
  async function client() {
    while (next < records.length) {
      const batch = records.slice(next, next + options.batchSize);
      next += options.batchSize;
      const response = await pool.request({
        path: '/v1/billing/usage/batch',
        method: 'POST',
        headers: headers(target.token),
        body: JSON.stringify({ records: batch }),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) {
        outcomes.failed_batches += 1;
        continue;
      }
      const result = JSON.parse(text) as { accepted: number; duplicates: number; rejected: number };
      outcomes.created += result.accepted;
      outcomes.duplicate += result.duplicates;
      outcomes.not_found += result.rejected;
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  const counted = await summary(target, subscriptionId, options.metric);
  const distinct = quantities.size;
  return {
    records: options.total,
    distinct_keys: distinct,
    duplicates_sent: options.total - distinct,
    batch_size: options.batchSize,
    concurrency: options.concurrency,
    seconds: Math.round(elapsed * 100) / 100,
    records_per_sec: Math.round(options.total / elapsed),
    outcomes,
    summary: counted,
    expected: { record_count: distinct, total_quantity: expectedTotal },
    double_counts: counted.record_count - distinct,
    quantity_difference: counted.total_quantity - expectedTotal,
  };
}

/** Posts one record every `everyMs` and polls the summary until it shows; ms from post to seen. */
export async function visibility(target: Target, samples: number, everyMs: number, metric: string) {
  const subscriptionId = target.subscriptionIds[2]!;
  const delays: number[] = [];
  let seen = 0;
  for (let i = 0; i < samples; i++) {
    const sent = performance.now();
    const response = await fetch(`${target.url}/v1/billing/usage`, {
      method: 'POST',
      headers: headers(target.token),
      body: JSON.stringify(record(subscriptionId, metric, randomUUID(), 1, '2030-03-01T00:00:00Z')),
    });
    await response.arrayBuffer();
    if (response.status !== 201) throw new Error(`visibility post answered ${response.status}`);
    while ((await summary(target, subscriptionId, metric)).record_count <= seen) {
      if (performance.now() - sent > 10_000) throw new Error('a posted record was not visible within 10 s');
    }
    seen += 1;
    delays.push(performance.now() - sent);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return {
    samples,
    ms: { p50: percentile(delays, 50), p99: percentile(delays, 99), max: percentile(delays, 100) },
  };
}
