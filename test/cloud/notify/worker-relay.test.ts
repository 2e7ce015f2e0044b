/**
 * The standalone notify worker with REDIS_URL: its console notifications reach a gateway's console
 * feed through the relay (real Redis at 127.0.0.1:6379), not only its own process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleFrame, createConsoleFeed } from '../../../cloud/cockpit/feed.ts';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { openStore, type Store } from '../../../cloud/db/index.ts';
import { createNotifyService } from '../../../cloud/notify/index.ts';
import { startNotifyWorker } from '../../../cloud/notify-worker.ts';
import { createRelay, type Relay } from '../../../cloud/relay.ts';
import { systemClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { notificationRequest } from './support.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const quiet = pino({ level: 'silent' });

describe('the standalone notify worker relays console notifications', () => {
  let dir: string;
  let store: Store;
  let redis: Redis;
  let gatewayRelay: Relay;
  let worker: Awaited<ReturnType<typeof startNotifyWorker>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'notify-relay-'));
    store = await openStore({ dataDir: dir });
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    gatewayRelay = createRelay({ redis, log: quiet });
    worker = await startNotifyWorker(
      loadCloudConfig({ DATA_DIR: dir, REDIS_URL, NOTIFY_POLL_MS: '50', LOG_LEVEL: 'silent' }),
      quiet,
    );
  });
  afterAll(async () => {
    await worker?.stop();
    await gatewayRelay?.close();
    await redis?.quit();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches the gateway’s console feed with its tenant', async () => {
    const heard: Array<[string, ConsoleFrame]> = [];
    createConsoleFeed(gatewayRelay).subscribe((tenantId, frame) => heard.push([tenantId, frame]));
    // Another process enqueues (the gateway, as alerting does); the worker process sends.
    const enqueuer = createNotifyService({
      store,
      clock: systemClock,
      newId,
      log: quiet,
      options: { ...loadCloudConfig({}).notify, runWorker: false },
      consoleFeed: createConsoleFeed(),
    });
    const tenantId = newId();
    await enqueuer.enqueue(store.db, tenantId, [notificationRequest({ channel: 'console' })]);
    await expect.poll(() => heard.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(heard[0]![0]).toBe(tenantId);
    expect(heard[0]![1]).toMatchObject({ type: expect.any(String) });
    await enqueuer.close();
  });
});
