/**
 * The edge router: its own process in front of the cloud
 * gateway. It owns the tenant-from-host rule, the per-client limiter, forwarding of `/api/v1/*`
 * and WebSocket upgrades to the gateway, and `/static/*` from object storage.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import { type Clock, systemClock } from '../../shared/clock.ts';
import { answerSocket } from './answers.ts';
import type { EdgeConfig } from './config.ts';
import { type ClientLimiter, createMemoryLimiter, createRedisLimiter, failOpen } from './limiter.ts';
import { createRouter } from './router.ts';
import { createObjectStore, type ObjectStore } from './storage/index.ts';
import { createUpstream } from './upstream.ts';
import type { Tunnels } from './websocket.ts';

export type { EdgeConfig } from './config.ts';

export interface EdgeDeps {
  clock?: Clock;
  log?: Logger;
  /** Replaces the limiter the config would build (memory, or Redis with REDIS_URL). */
  limiter?: ClientLimiter;
  /** Replaces the object store the config would build (disk, or S3). */
  store?: ObjectStore;
}

export interface RunningEdge {
  port: number;
  url: string;
  server: Server;
  stop(): Promise<void>;
}

// In-flight requests get this long to finish once stopping; then their connections are closed.
const DRAIN_MS = 5000;

function connectRedis(url: string, log: Logger) {
  // A slow or absent Redis must not stall requests: the limiter fails open after 250 ms.
  const redis = new Redis(url, { commandTimeout: 250, maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', (error: Error) => log.debug({ err: error }, 'edge redis error'));
  return redis;
}

function listen(server: Server, port: number, host: string) {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server, tunnels: Tunnels) {
  for (const socket of tunnels) socket.destroy();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
  return closed.finally(() => clearTimeout(force));
}

/** Starts the router; resolves once it listens. stop() drains requests, closes tunnels, pools and stores. */
export async function startEdge(config: EdgeConfig, deps: EdgeDeps = {}): Promise<RunningEdge> {
  const log = (deps.log ?? pino({ level: config.logLevel })).child({ module: 'edge' });
  const redis = !deps.limiter && config.redisUrl ? connectRedis(config.redisUrl, log) : undefined;
  await redis
    ?.connect()
    .catch((error: unknown) => log.warn({ err: error }, 'edge redis unreachable at start'));
  const limiter =
    deps.limiter ??
    (redis
      ? failOpen(createRedisLimiter(redis, { keyPrefix: config.redisKeyPrefix }), log)
      : createMemoryLimiter());
  const store = deps.store ?? createObjectStore(config.storage);
  const upstream = createUpstream(config);
  const tunnels: Tunnels = new Set();
  const router = createRouter(config, {
    limiter,
    store,
    upstream,
    clock: deps.clock ?? systemClock,
    log,
    tunnels,
  });
  const server = createServer({ keepAliveTimeout: 65_000 }, router.request);
  server.on('upgrade', router.upgrade);
  // Node's own answer to a malformed request would lack the security headers every answer carries.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    answerSocket(socket, tooLarge ? 431 : 400, tooLarge ? 'Request Header Fields Too Large' : 'Bad Request');
  });
  const port = await listen(server, config.port, config.host);
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.info(
    { port, host: config.host, gateway: config.gatewayUrl.origin, redis: Boolean(redis) },
    'edge listening',
  );
  return {
    port,
    url,
    server,
    async stop() {
      await closeServer(server, tunnels);
      await upstream.close();
      await limiter.close();
      await store.close();
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}
