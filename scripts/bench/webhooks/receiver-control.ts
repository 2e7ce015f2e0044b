/**
 * The bench's line to the receiver child (./receiver.ts): its clock, its counts, what it received.
 * Receiver stamps are wall-clock milliseconds of that process; `clockOffset` measures how far they
 * sit from this process's own stamps, so latencies across the two can be corrected for it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';

/** What the receiver got, column by column: one entry per request, in arrival order. */
export interface ReceiverRecords {
  /** Arrival, ms on the receiver's wall clock (sub-ms resolution). */
  t: number[];
  endpoint: number[];
  event: string[];
  delivery: string[];
  /** The answer: 200, 500, or 0 for a request left hanging. */
  status: number[];
}

export interface ReceiverStats {
  requests: number;
  /** Distinct deliveries answered 200. */
  ok_deliveries: number;
  last_ok_at: number;
}

/** This process's wall clock at sub-millisecond resolution, as the receiver stamps it. */
export const stamp = () => performance.timeOrigin + performance.now();

export function receiverControl(port: number) {
  const base = `http://127.0.0.1:${port}`;
  const get = async <T>(path: string): Promise<T> => {
    const response = await request(`${base}${path}`, { headersTimeout: 30_000, bodyTimeout: 60_000 });
    return (await response.body.json()) as T;
  };
  return {
    stats: () => get<ReceiverStats>('/stats'),
    records: (from = 0) => get<ReceiverRecords>(`/records?from=${from}`),
    async reset() {
      const response = await request(`${base}/reset`, { method: 'POST' });
      await response.body.dump();
    },

    /**
     * How far the receiver's stamps run ahead of ours, in ms: from the ping with the shortest round
     * trip, taking its stamp to be made half-way (both read the same system clock, so this stays
     * well under a millisecond unless something is wrong).
     */
    async clockOffset(pings = 20) {
      let best = { rtt: Number.POSITIVE_INFINITY, offset: 0 };
      for (let i = 0; i < pings; i++) {
        const sent = stamp();
        const { now } = await get<{ now: number }>('/now');
        const back = stamp();
        if (back - sent < best.rtt) best = { rtt: back - sent, offset: now - (sent + back) / 2 };
      }
      return best;
    },

    /** Polls until `done` holds for the counts, or gives up after `timeoutMs` with the last counts. */
    async until(done: (stats: ReceiverStats) => boolean, timeoutMs: number) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const stats = await get<ReceiverStats>('/stats');
        if (done(stats)) return { stats, timedOut: false };
        if (performance.now() > deadline) return { stats, timedOut: true };
        await sleep(50);
      }
    },
  };
}

export type ReceiverControl = ReturnType<typeof receiverControl>;
