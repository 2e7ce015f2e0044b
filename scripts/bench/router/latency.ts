/**
 * One request at a time over one keep-alive connection, timed to the microsecond: what a hop adds to
 * a request when nothing queues (autocannon's whole milliseconds are too coarse for that).
 */
import { Agent, request } from 'node:http';
import { Samples } from '../lib/samples.ts';

export interface LatencyMeasurement {
  requests: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
}

function once(agent: Agent, url: URL, headers: Record<string, string>) {
  return new Promise<number>((resolve, reject) => {
    const outgoing = request(url, { agent, headers }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', reject);
    });
    outgoing.once('error', reject);
    outgoing.end();
  });
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

export async function sequentialLatency(
  url: string,
  headers: (n: number) => Record<string, string>,
  requests: number,
): Promise<LatencyMeasurement> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  const samples = new Samples(requests);
  let non2xx = 0;
  try {
    for (let n = 0; n < requests / 5; n++) await once(agent, target, headers(n)); // warm-up
    for (let n = 0; n < requests; n++) {
      const started = process.hrtime.bigint();
      const status = await once(agent, target, headers(n));
      samples.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (status < 200 || status > 299) non2xx += 1;
    }
  } finally {
    agent.destroy();
  }
  const sorted = samples.view().slice().sort();
  const round3 = (ms: number) => Math.round(ms * 1000) / 1000;
  return { requests, p50_ms: round3(percentile(sorted, 50)), p99_ms: round3(percentile(sorted, 99)), non2xx };
}
