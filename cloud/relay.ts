/**
 * Tells the other cloud replicas what this one just did in memory (a chat message to deliver to the
 * sockets they hold, a console frame), over Redis pub/sub when REDIS_URL is set. Without Redis
 * there is one replica and nothing to tell. A replica never hears its own messages back: callers
 * act locally first, then publish.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

type Handler = (payload: unknown) => void | Promise<void>;

export interface Relay {
  publish(topic: string, payload: unknown): void;
  on(topic: string, handler: Handler): void;
  close(): Promise<void>;
}

const CHANNEL_PREFIX = 'relay:';

export function createRelay(deps: { redis?: Redis | undefined; log: Logger; namespace?: string }): Relay {
  const handlers = new Map<string, Set<Handler>>();
  const on = (topic: string, handler: Handler) => {
    const set = handlers.get(topic) ?? new Set();
    set.add(handler);
    handlers.set(topic, set);
  };
  if (!deps.redis) return { publish: () => {}, on, close: async () => {} };

  const { redis, log } = deps;
  const origin = randomUUID();
  const channel = `${CHANNEL_PREFIX}${deps.namespace ?? 'cloud'}`;
  // A subscribed connection can do nothing else: the relay listens on a duplicate of its own.
  const subscriber = redis.duplicate();
  const ready = subscriber.subscribe(channel).catch((error: unknown) => {
    log.error({ err: error }, 'relay: subscribing failed; other replicas’ frames will not arrive');
  });
  subscriber.on('message', (_channel: string, raw: string) => {
    let envelope: { origin: string; topic: string; payload: unknown };
    try {
      envelope = JSON.parse(raw);
    } catch {
      return;
    }
    if (envelope.origin === origin) return;
    for (const handler of handlers.get(envelope.topic) ?? [])
      void Promise.resolve()
        .then(() => handler(envelope.payload))
        .catch((error: unknown) => log.error({ err: error, topic: envelope.topic }, 'relay: handler failed'));
  });

  return {
    publish(topic, payload) {
      redis.publish(channel, JSON.stringify({ origin, topic, payload })).catch((error: unknown) => {
        log.error({ err: error, topic }, 'relay: publishing failed; other replicas miss this frame');
      });
    },
    on,
    async close() {
      await ready;
      subscriber.disconnect();
    },
  };
}
