import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGroupCommit } from '../../../cloud/sync/group-commit.ts';
import { newId } from '../../../shared/ids.ts';
import { backends, openTestStore, type TestStore } from '../../support/stores.ts';

describe.each(backends)('push group commit (%s)', (backend) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openTestStore(backend);
  });
  afterEach(() => store.destroy());

  const event = (id: string) => ({
    id,
    tenant_id: 't',
    location_id: 'l',
    type: 'order.created',
    occurred_at: '2026-06-10T19:00:00.000Z',
    data: '{}',
    received_at: '2026-06-10T19:00:00.000Z',
  });
  const stored = async () =>
    (await store.db.selectFrom('domain_events').select('id').execute()).map((r) => r.id).sort();

  it('commits the pushes waiting together, rolling a failed one back alone', async () => {
    const groups = createGroupCommit(store.db, { maxGroup: 8, lanes: 1 });
    const ids = Array.from({ length: 5 }, () => newId());
    const transactions = new Set<unknown>();
    const results = await Promise.allSettled(
      ids.map((id, i) =>
        groups.run('store-1', async (trx) => {
          transactions.add(trx);
          await trx.insertInto('domain_events').values(event(id)).execute();
          if (i === 2) throw new Error('this push is refused');
          return i;
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(await stored()).toEqual([ids[0], ids[1], ids[3], ids[4]].sort());
    // The first ran alone; the four that queued behind it shared the next transaction.
    expect(transactions.size).toBe(2);
  });

  it('refuses a push whose write fails, and keeps serving the store', async () => {
    const groups = createGroupCommit(store.db, { maxGroup: 8, lanes: 1 });
    const duplicate = newId();
    await store.db.insertInto('domain_events').values(event(duplicate)).execute();
    const refused = await groups
      .run('store-1', (trx) => trx.insertInto('domain_events').values(event(duplicate)).execute())
      .then(
        () => 'committed',
        () => 'refused',
      );
    expect(refused).toBe('refused');
    const later = newId();
    await groups.run('store-1', (trx) => trx.insertInto('domain_events').values(event(later)).execute());
    expect(await stored()).toEqual([duplicate, later].sort());
  });

  it('runs a second transaction beside the first when given two lanes', async () => {
    const groups = createGroupCommit(store.db, { maxGroup: 8, lanes: 2 });
    const ids = Array.from({ length: 6 }, () => newId());
    const transactions = new Set<unknown>();
    await Promise.all(
      ids.map((id) =>
        groups.run('store-1', async (trx) => {
          transactions.add(trx);
          await trx.insertInto('domain_events').values(event(id)).execute();
        }),
      ),
    );
    expect(await stored()).toEqual([...ids].sort());
    expect(transactions.size).toBeGreaterThanOrEqual(2);
  });
});
