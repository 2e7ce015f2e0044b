/** Seeded series with planted anomalies, for the detector's precision and recall. */

/** mulberry32: a small seeded generator, so a failing run can be repeated. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => {
    const u = Math.max(next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  return { next, normal };
}

export interface PlantedSeries {
  metric: string;
  subject: string;
  points: Array<{ at: number; value: number; planted: boolean }>;
}

/**
 * Gaussian noise around a level, one point every `stepMs`; after `warmupPoints`, each point is
 * replaced with probability `rate` by a spike of 4 to 8 standard deviations either way.
 */
export function plantedSeries(
  random: ReturnType<typeof seeded>,
  options: {
    metric: string;
    subject: string;
    start: number;
    stepMs: number;
    count: number;
    mean: number;
    std: number;
    rate: number;
    warmupPoints: number;
  },
): PlantedSeries {
  const points = [];
  for (let i = 0; i < options.count; i += 1) {
    const planted = i >= options.warmupPoints && random.next() < options.rate;
    const spike = planted ? (4 + 4 * random.next()) * (random.next() < 0.5 ? -1 : 1) : random.normal();
    points.push({
      at: options.start + i * options.stepMs,
      value: options.mean + spike * options.std,
      planted,
    });
  }
  return { metric: options.metric, subject: options.subject, points };
}

export function score(planted: Set<string>, detected: Set<string>) {
  let truePositives = 0;
  for (const key of detected) if (planted.has(key)) truePositives += 1;
  return {
    planted: planted.size,
    detected: detected.size,
    truePositives,
    precision: detected.size === 0 ? 0 : truePositives / detected.size,
    recall: planted.size === 0 ? 0 : truePositives / planted.size,
  };
}
