import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../../shared/clock.ts';
import { TooManyRequestsError } from '../../shared/http/errors.ts';
import type { RateLimitDecision, RateLimiter, RateLimitPolicy } from './rate-limit.ts';

export interface RateLimitPluginOptions {
  limiter: RateLimiter;
  clock: Clock;
  /** Which bucket a request draws from; undefined = not limited (health, metrics, docs). */
  resolve(request: FastifyRequest): Promise<{ key: string; policy: RateLimitPolicy } | undefined>;
}

async function takeOrFailOpen(
  opts: RateLimitPluginOptions,
  request: FastifyRequest,
  key: string,
  policy: RateLimitPolicy,
): Promise<RateLimitDecision | undefined> {
  try {
    return await opts.limiter.take(key, policy, opts.clock.now());
  } catch (error) {
    // Fail open: a broken limiter store (Redis down) must not take the whole gateway down with it;
    // an unmetered minute is cheaper than refusing every tenant.
    request.log.warn({ err: error, key }, 'rate limiter unavailable, request let through');
    return undefined;
  }
}

function setHeaders(reply: FastifyReply, decision: RateLimitDecision): void {
  reply.headers({
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(decision.resetAtSeconds),
  });
}

/**
 * Meters every request against its tenant's bucket. Register it after the hook that reads the
 * bearer token, so `resolve` can see the tenant, and after the conventions plugin, whose error
 * handler renders the 429 envelope.
 */
export const rateLimitPlugin = fp(
  async function rateLimit(app: FastifyInstance, opts: RateLimitPluginOptions) {
    app.addHook('onRequest', async (request, reply) => {
      const bucket = await opts.resolve(request);
      if (!bucket) return;
      const decision = await takeOrFailOpen(opts, request, bucket.key, bucket.policy);
      if (!decision) return;
      setHeaders(reply, decision);
      if (!decision.allowed) {
        throw new TooManyRequestsError('Rate limit exceeded, retry later', decision.retryAfterSeconds);
      }
    });
  },
  { name: 'rate-limit' },
);
