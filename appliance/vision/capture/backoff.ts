export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Growth per failed attempt; 2 unless set. */
  factor?: number;
  /** Fraction of each delay that is randomised (0 to 1), so cameras behind one NVR do not retry in step. */
  jitter?: number;
}

/** Exponential back-off: initialMs, then factor times longer per failure up to maxMs. */
export function createBackoff(options: BackoffOptions, random: () => number = Math.random) {
  const factor = options.factor ?? 2;
  const jitter = options.jitter ?? 0.2;
  let attempts = 0;
  return {
    next(): number {
      const base = Math.min(options.maxMs, options.initialMs * factor ** attempts);
      attempts += 1;
      return Math.round(base * (1 - jitter / 2 + jitter * random()));
    },
    reset() {
      attempts = 0;
    },
    get attempts() {
      return attempts;
    },
  };
}
