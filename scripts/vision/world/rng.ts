/**
 * A small seeded PRNG (mulberry32) with named streams, so the simulator, the looks of things and the
 * noise each draw from their own sequence: changing how cars are drawn never changes the traffic.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [0, n). */
  int(n: number): number;
  range(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Standard normal (Box-Muller). */
  normal(): number;
  /** Exponential with the given mean. */
  exponential(mean: number): number;
  /** Log-normal with the given mean and coefficient of variation: service times are skewed and positive. */
  lognormal(mean: number, cv: number): number;
}

function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function createRng(seed: number, stream = ''): Rng {
  const next = mulberry32(hashString(`${seed}:${stream}`) ^ Math.imul(seed | 0, 0x9e3779b1));
  const normal = () => {
    const u = Math.max(next(), Number.EPSILON);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    range: (min, max) => min + (max - min) * next(),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    normal,
    exponential: (mean) => -mean * Math.log(1 - next()),
    lognormal: (mean, cv) => {
      const sigma2 = Math.log(1 + cv * cv);
      return Math.exp(Math.log(mean) - sigma2 / 2 + Math.sqrt(sigma2) * normal());
    },
  };
}
