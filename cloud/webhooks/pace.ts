import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../shared/clock.ts';

export interface Pace {
  wait(maxPerSecond: number | null): Promise<void>;
  lastSentAt(): string | null;
}

/**
 * Starts requests on a grid 1/rate apart (real time; the injected clock only stamps records), so
 * the long-run rate is the limit itself and a late timer never lets the next start come early
 * twice. A lane that fell far behind starts a new grid instead of bursting to catch up. The grid
 * begins from the lane's last send, so a lane changing workers keeps its pace.
 */
export function createPace(clock: Clock, lastSentAt: string | null): Pace {
  let last = lastSentAt ? Date.parse(lastSentAt) : undefined;
  let slot: number | undefined;
  return {
    async wait(maxPerSecond) {
      if (maxPerSecond !== null && maxPerSecond > 0) {
        const interval = 1000 / maxPerSecond;
        const now = performance.now();
        if (slot === undefined) {
          const sinceLast = last === undefined ? interval : clock.now().getTime() - last;
          slot = now + Math.max(0, Math.min(interval, interval - sinceLast));
        } else {
          slot += interval;
          if (slot < now - interval) slot = now;
        }
        if (slot > now) await sleep(slot - now);
      }
      last = clock.now().getTime();
    },
    lastSentAt: () => (last === undefined ? null : new Date(last).toISOString()),
  };
}
