import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { createNotifyService } from '../../../cloud/notify/index.ts';
import { claimDue } from '../../../cloud/notify/store.ts';
import { newId } from '../../../shared/ids.ts';
import { waitFor } from '../../support/processes.ts';
import { backends } from '../../support/stores.ts';
import { createProviderSink, type NotifyRig, notificationRequest, notifyRig } from './support.ts';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

describe.each(backends)('the running notify worker on %s', (backend) => {
  let rig: NotifyRig;
  let provider: Awaited<ReturnType<typeof createProviderSink>>;
  const arrived = new Map<string, number>();

  beforeAll(async () => {
    provider = await createProviderSink((request) => {
      arrived.set(String(request.body.reference), performance.now());
      return { status: 200 };
    });
    rig = await notifyRig(backend, { smsUrl: provider.url('/sms'), pollMs: 200 });
    rig.notify.start();
  });
  afterAll(async () => {
    await rig.close();
    await provider.close();
  });

  it('starts a P1’s first attempt well under 2 s after the enqueue commits', async () => {
    const direct: number[] = [];
    const inTransaction: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      const since = performance.now();
      const [id] = await rig.notify.enqueue(rig.store.db, rig.a, [notificationRequest({ channel: 'sms' })]);
      await waitFor('the provider call', () => arrived.get(id!), 5000);
      direct.push(arrived.get(id!)! - since);

      let committed = 0;
      const [inTrx] = await rig.store.db.transaction().execute(async (trx) => {
        const ids = await rig.notify.enqueue(trx, rig.a, [notificationRequest({ channel: 'sms' })]);
        committed = performance.now();
        return ids;
      });
      await waitFor('the provider call', () => arrived.get(inTrx!), 5000);
      inTransaction.push(arrived.get(inTrx!)! - committed);
    }
    const figures = {
      direct: { p50: percentile(direct, 50), p99: percentile(direct, 99) },
      transaction: { p50: percentile(inTransaction, 50), p99: percentile(inTransaction, 99) },
    };
    process.stdout.write(`notify first-attempt latency on ${backend} (ms): ${JSON.stringify(figures)}\n`);
    expect(figures.direct.p99).toBeLessThan(500);
    expect(figures.transaction.p99).toBeLessThan(1000);
  });

  it('shares the queue between workers without sending anything twice', async () => {
    const second = createNotifyService({
      store: rig.store,
      clock: rig.clock,
      newId,
      log: pino({ level: 'silent' }),
      options: { ...loadCloudConfig({}).notify, smsUrl: provider.url('/sms') },
      consoleFeed: rig.feed,
    });
    second.start();
    try {
      provider.requests.length = 0;
      const requests = Array.from({ length: 60 }, () => notificationRequest({ channel: 'sms' }));
      const ids = await rig.notify.enqueue(rig.store.db, rig.b, requests);
      second.wake();
      await waitFor(
        'every delivery',
        async () => {
          const page = await rig.notify.list(rig.b, { status: 'delivered' }, { limit: 200 });
          return page.items.length === 60 ? true : undefined;
        },
        20_000,
      );
      const references = provider.requests.map((request) => String(request.body.reference));
      expect(references.sort()).toEqual([...ids].sort());
    } finally {
      await second.close();
    }
  });
});

describe('NOTIFY_WORKER=false', () => {
  it('leaves the queue to other processes', async () => {
    const rig = await notifyRig('sqlite', { runWorker: false });
    try {
      rig.notify.start();
      const [id] = await rig.notify.enqueue(rig.store.db, rig.a, [
        notificationRequest({ channel: 'console', recipient: null }),
      ]);
      await sleep(400);
      expect((await rig.notify.get(rig.a, id!)).attempt_count).toBe(0);
    } finally {
      await rig.close();
    }
  });
});

describe.each(backends)('claiming due notifications on %s', (backend) => {
  it('claims no more than the limit, and nothing another claim holds', async () => {
    const rig = await notifyRig(backend, { runWorker: false });
    try {
      const requests = Array.from({ length: 7 }, () =>
        notificationRequest({ channel: 'console', recipient: null }),
      );
      await rig.notify.enqueue(rig.store.db, rig.a, requests);
      const now = rig.clock.now().toISOString();
      const lease = { now, leaseUntil: new Date(Date.parse(now) + 30_000).toISOString() };
      const first = await claimDue(rig.store.db, rig.store.dialect, { owner: 'one', limit: 3, ...lease });
      const second = await claimDue(rig.store.db, rig.store.dialect, { owner: 'two', limit: 3, ...lease });
      const third = await claimDue(rig.store.db, rig.store.dialect, { owner: 'three', limit: 3, ...lease });
      expect([first.length, second.length, third.length]).toEqual([3, 3, 1]);
      const ids = [...first, ...second, ...third].map((row) => row.id);
      expect(new Set(ids).size).toBe(7);
      expect(third.every((row) => row.attempts === 1 && row.lease_owner === 'three')).toBe(true);
    } finally {
      await rig.close();
    }
  });
});
