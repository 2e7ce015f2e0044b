import type { Redis } from 'ioredis';

/**
 * Per-tenant-tier rate limiting with GCRA (a token bucket kept as one number per key: the
 * theoretical arrival time, TAT). The memory and Redis stores run the same step on the
 * caller's clock, so one process and a fleet of replicas answer identically.
 */
export type Tier = 'free' | 'professional' | 'enterprise';

export interface RateLimitPolicy {
  perMinute: number;
  burst: number;
}

export const TIER_LIMITS: Record<Tier, RateLimitPolicy> = {
  free: { perMinute: 60, burst: 10 },
  professional: { perMinute: 600, burst: 100 },
  enterprise: { perMinute: 6000, burst: 1000 },
};

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetAtSeconds: number;
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(key: string, policy: RateLimitPolicy, now: Date): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export interface MemoryRateLimiter extends RateLimiter {
  /** Keys currently held; exposed so the memory bound can be observed. */
  size(): number;
}

interface Cell {
  intervalMs: number;
  capacityMs: number;
}

interface Step {
  allowed: boolean;
  tat: number;
}

// Dividing by an interval that is not a whole number of ms can land a hair below an integer.
const EPSILON = 1e-9;

function cellOf(policy: RateLimitPolicy): Cell {
  if (!(policy.perMinute > 0) || !(policy.burst >= 1)) {
    throw new RangeError(`Invalid rate limit policy ${policy.perMinute}/${policy.burst}`);
  }
  const intervalMs = 60_000 / policy.perMinute;
  return { intervalMs, capacityMs: intervalMs * policy.burst };
}

/** One GCRA step; a refused request leaves the stored TAT as it was. */
function step(storedTat: number | undefined, cell: Cell, nowMs: number): Step {
  const tat = Math.max(storedTat ?? nowMs, nowMs);
  const candidate = tat + cell.intervalMs;
  if (candidate - nowMs > cell.capacityMs) return { allowed: false, tat };
  return { allowed: true, tat: candidate };
}

function decide(
  policy: RateLimitPolicy,
  cell: Cell,
  nowMs: number,
  { allowed, tat }: Step,
): RateLimitDecision {
  const room = Math.floor((cell.capacityMs - (tat - nowMs)) / cell.intervalMs + EPSILON);
  const waitMs = tat + cell.intervalMs - cell.capacityMs - nowMs;
  return {
    allowed,
    limit: policy.perMinute,
    remaining: Math.min(policy.burst, Math.max(0, room)),
    resetAtSeconds: Math.ceil(tat / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(waitMs / 1000)),
  };
}

// Bounded so one request never pays for a long sweep; each take adds at most one key.
const PRUNE_PER_TAKE = 16;

/** Map order is least recently written first, so refilled buckets gather at the head. */
function pruneRefilled(tats: Map<string, number>, nowMs: number): void {
  let pruned = 0;
  for (const [key, tat] of tats) {
    if (tat > nowMs || pruned === PRUNE_PER_TAKE) return;
    tats.delete(key);
    pruned += 1;
  }
}

function remember(tats: Map<string, number>, key: string, tat: number, maxKeys: number): void {
  tats.delete(key);
  // Dropping the least recently used live bucket hands that client a fresh burst; a small
  // leak of budget is the price of bounded memory under a flood of distinct keys.
  const oldest = tats.size >= maxKeys ? tats.keys().next() : undefined;
  if (oldest && !oldest.done) tats.delete(oldest.value);
  tats.set(key, tat);
}

export function createMemoryRateLimiter(options: { maxKeys?: number } = {}): MemoryRateLimiter {
  const maxKeys = options.maxKeys ?? 100_000;
  const tats = new Map<string, number>();
  return {
    async take(key, policy, now) {
      const nowMs = now.getTime();
      const cell = cellOf(policy);
      pruneRefilled(tats, nowMs);
      const result = step(tats.get(key), cell, nowMs);
      if (result.allowed) remember(tats, key, result.tat, maxKeys);
      return decide(policy, cell, nowMs, result);
    },
    async close() {
      tats.clear();
    },
    size: () => tats.size,
  };
}

// The same step as `step()`, atomic in Redis. TATs travel as %.17g strings because Lua's default
// number formatting keeps 14 digits and Redis truncates returned numbers to integers; this way
// both stores do bit-identical double arithmetic. The TTL drops the key once the bucket is full.
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local stored = redis.call('GET', KEYS[1])
local tat = now
if stored then tat = math.max(tonumber(stored), now) end
local candidate = tat + interval
if candidate - now > capacity then
  return {0, string.format('%.17g', tat)}
end
local text = string.format('%.17g', candidate)
redis.call('SET', KEYS[1], text, 'PX', math.ceil(candidate - now))
return {1, text}
`;

const TAKE_COMMAND = 'rateLimitGcraTake';

type RedisWithTake = Redis & {
  [TAKE_COMMAND]: (key: string, nowMs: string, intervalMs: string, capacityMs: string) => Promise<unknown>;
};

function parseReply(reply: unknown): Step {
  if (!Array.isArray(reply) || typeof reply[1] !== 'string') {
    throw new Error('Unexpected reply from the rate limit script');
  }
  return { allowed: reply[0] === 1, tat: Number(reply[1]) };
}

/** The owner of the Redis client closes it; several limiters may share one client. */
export function createRedisRateLimiter(redis: Redis, options: { keyPrefix?: string } = {}): RateLimiter {
  const keyPrefix = options.keyPrefix ?? 'ratelimit:';
  redis.defineCommand(TAKE_COMMAND, { numberOfKeys: 1, lua: TAKE_SCRIPT });
  const client = redis as RedisWithTake;
  return {
    async take(key, policy, now) {
      const nowMs = now.getTime();
      const cell = cellOf(policy);
      const reply = await client[TAKE_COMMAND](
        `${keyPrefix}${key}`,
        String(nowMs),
        String(cell.intervalMs),
        String(cell.capacityMs),
      );
      return decide(policy, cell, nowMs, parseReply(reply));
    },
    async close() {},
  };
}
