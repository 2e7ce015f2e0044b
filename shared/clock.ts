/** Time is injected everywhere so tests can move it; production uses the system clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and advance. */
export function createManualClock(start: Date | string = '2026-01-01T00:00:00.000Z') {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
    set(at: Date | string) {
      current = new Date(at).getTime();
    },
  };
}

export type ManualClock = ReturnType<typeof createManualClock>;

export const unixSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);
