import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * The edge's per-client limiter: at most 100 requests in any sliding 60-second
 * window per client address. An exact sliding-window log, not an approximation: every admitted
 * request's time is kept until it leaves the window, and a refused one is not recorded. In memory
 * by default; in Redis (a sorted set per client, one atomic script) so router replicas count together.
 * The caller passes `now`, so tests drive the window with a manual clock.
 */
export const EDGE_LIMIT = { limit: 100, windowMs: 60_000 } as const;

export interface LimitPolicy {
  limit: number;
  windowMs: number;
}

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the oldest request leaves the window (0 when allowed). */
  retryAfterSeconds: number;
  /** Unix seconds at which the oldest request in the window leaves it. */
  resetAtSeconds: number;
}

export interface ClientLimiter {
  /** In memory the decision comes at once: no promise to wait on for every request. */
  take(client: string, now: Date): LimitDecision | Promise<LimitDecision>;
  close(): Promise<void>;
}

/** The limiter's own answer, L1 (429 `Rate Limited`) or L2 (the headers an admitted request carries). */
export interface LimiterAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export function limiterAnswer(decision: LimitDecision): LimiterAnswer {
  // Reset goes on admitted answers too: the gateway sets its own (per tenant tier) on the answers
  // we forward, and a Reset of its beside our Limit and Remaining would describe neither limit.
  const counts = {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(decision.resetAtSeconds),
  };
  if (decision.allowed) return { status: 200, body: '', headers: counts };
  return {
    status: 429,
    body: 'Rate Limited',
    headers: { 'retry-after': String(decision.retryAfterSeconds), ...counts },
  };
}

/** From the window after this request (allowed) or as it stood (refused), by its oldest entry. */
function decide(policy: LimitPolicy, allowed: boolean, count: number, oldestMs: number, nowMs: number) {
  const leavesAt = oldestMs + policy.windowMs;
  return {
    allowed,
    limit: policy.limit,
    remaining: Math.max(0, policy.limit - count),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((leavesAt - nowMs) / 1000)),
    resetAtSeconds: Math.ceil(leavesAt / 1000),
  };
}

// Bounded so one request never pays for a long sweep; each take adds at most one client.
const SWEEP_PER_TAKE = 4;

/** A request at t is in the window at `now` while t > now - window: it leaves exactly at t + window. */
function trim(log: number[], cutoffMs: number) {
  let first = 0;
  while (first < log.length && log[first]! <= cutoffMs) first += 1;
  if (first > 0) log.splice(0, first);
}

/**
 * Forgets clients idle for a whole window, a few per request: a cursor walks the map round and
 * round (a Map's iterator survives deletions), so the work per request is constant and a client's
 * entry never moves (re-inserting on every request cost a tenth of the router's CPU at 50,000
 * clients).
 */
function idleSweeper(windows: Map<string, number[]>) {
  let cursor = windows.entries();
  return (cutoffMs: number) => {
    for (let n = 0; n < SWEEP_PER_TAKE; n++) {
      const next = cursor.next();
      if (next.done) {
        cursor = windows.entries();
        return;
      }
      const [client, log] = next.value;
      const newest = log[log.length - 1];
      if (newest === undefined || newest <= cutoffMs) windows.delete(client);
    }
  };
}

export function createMemoryLimiter(
  options: { policy?: LimitPolicy; maxClients?: number } = {},
): ClientLimiter & { size(): number } {
  const policy = options.policy ?? EDGE_LIMIT;
  const maxClients = options.maxClients ?? 100_000;
  const windows = new Map<string, number[]>();
  const sweep = idleSweeper(windows);
  return {
    take(client, now) {
      const nowMs = now.getTime();
      const cutoffMs = nowMs - policy.windowMs;
      sweep(cutoffMs);
      let log = windows.get(client);
      if (log === undefined) {
        // Dropping the earliest-seen client hands it a fresh window: the price of bounded memory
        // under a flood of distinct addresses.
        if (windows.size >= maxClients) windows.delete(windows.keys().next().value!);
        log = [];
        windows.set(client, log);
      }
      trim(log, cutoffMs);
      if (log.length >= policy.limit) return decide(policy, false, log.length, log[0]!, nowMs);
      log.push(nowMs);
      return decide(policy, true, log.length, log[0]!, nowMs);
    },
    async close() {
      windows.clear();
    },
    size: () => windows.size,
  };
}

// Trim, count, add, expire in one step, so replicas never both admit the 100th request. Scores are
// the caller's milliseconds; members are unique per request (two at the same ms both count).
const TAKE_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {allowed, count, oldest[2] or ARGV[1]}
`;

const TAKE_COMMAND = 'edgeSlidingWindowTake';

type RedisWithTake = Redis & {
  [TAKE_COMMAND]: (
    key: string,
    nowMs: string,
    cutoffMs: string,
    limit: string,
    windowMs: string,
    member: string,
  ) => Promise<unknown>;
};

function parseReply(reply: unknown) {
  if (!Array.isArray(reply) || typeof reply[1] !== 'number' || typeof reply[2] !== 'string')
    throw new Error('Unexpected reply from the edge limiter script');
  return { allowed: reply[0] === 1, count: reply[1], oldestMs: Number(reply[2]) };
}

/** The owner of the Redis client closes it. */
export function createRedisLimiter(
  redis: Redis,
  options: { keyPrefix?: string; policy?: LimitPolicy } = {},
): ClientLimiter {
  const policy = options.policy ?? EDGE_LIMIT;
  const keyPrefix = options.keyPrefix ?? 'edge:ratelimit:';
  const instance = randomUUID().slice(0, 8);
  let sequence = 0;
  redis.defineCommand(TAKE_COMMAND, { numberOfKeys: 1, lua: TAKE_SCRIPT });
  const client = redis as RedisWithTake;
  return {
    async take(address, now) {
      const nowMs = now.getTime();
      sequence += 1;
      const reply = await client[TAKE_COMMAND](
        `${keyPrefix}${address}`,
        String(nowMs),
        String(nowMs - policy.windowMs),
        String(policy.limit),
        String(policy.windowMs),
        `${nowMs}:${instance}:${sequence}`,
      );
      const { allowed, count, oldestMs } = parseReply(reply);
      return decide(policy, allowed, count, oldestMs, nowMs);
    },
    async close() {},
  };
}

const WARN_EVERY_MS = 10_000;

/**
 * A limiter that cannot answer (Redis down or slow) admits the request: an outage of the counter
 * must not become an outage of the site. Logged at most every 10 s, not once per request.
 */
export function failOpen(
  limiter: ClientLimiter,
  log: Logger,
  policy: LimitPolicy = EDGE_LIMIT,
): ClientLimiter {
  let lastWarnMs = 0;
  return {
    async take(client, now) {
      try {
        return await limiter.take(client, now);
      } catch (error) {
        if (Date.now() - lastWarnMs >= WARN_EVERY_MS) {
          lastWarnMs = Date.now();
          log.warn({ err: error }, 'edge limiter unavailable: admitting requests uncounted');
        }
        return decide(policy, true, 0, now.getTime(), now.getTime());
      }
    },
    close: () => limiter.close(),
  };
}
