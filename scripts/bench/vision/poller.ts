/**
 * The store's terminals and screens asking the API process the whole time it runs: one request at
 * a time on a kept-alive connection, a new one every `intervalMs` (at once when the last took
 * longer), the path of the i-th from `pathOf(i)`. Each response's time and status is kept, so any
 * window of the run can be judged on its own.
 */
import { Agent, request } from 'node:http';
import { percentiles } from './stats.ts';

export interface PollWindow {
  requests: number;
  response_ms: ReturnType<typeof percentiles>;
  non_200: number;
  errors: number;
}

const TIMEOUT_MS = 10_000;

export function startPoller(port: number, pathOf: (i: number) => string, intervalMs: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const at: number[] = [];
  const took: number[] = [];
  const status: number[] = [];
  let stopped = false;

  const once = (path: string) =>
    new Promise<number>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path, agent, timeout: TIMEOUT_MS }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', () => resolve(0));
      });
      req.once('timeout', () => req.destroy(new Error('timed out')));
      req.once('error', () => resolve(0));
      req.end();
    });

  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const code = await once(pathOf(at.length));
      const ended = performance.now();
      at.push(started);
      took.push(ended - started);
      status.push(code);
      const wait = started + intervalMs - ended;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();

  return {
    /** The requests started from `since` (performance.now()) on. */
    window(since: number): PollWindow {
      const first = at.findIndex((t) => t >= since);
      const from = first === -1 ? at.length : first;
      const codes = status.slice(from);
      return {
        requests: codes.length,
        response_ms: percentiles(took.slice(from), 2),
        non_200: codes.filter((code) => code !== 200 && code !== 0).length,
        errors: codes.filter((code) => code === 0).length,
      };
    },
    async stop() {
      stopped = true;
      await loop;
      agent.destroy();
    },
  };
}
