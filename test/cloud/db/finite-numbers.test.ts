import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../shared/http/errors.ts';
import { backends, openTestStore, type TestStore } from '../../support/stores.ts';

describe.each(backends)('the store refuses numbers no column should hold (%s)', (backend) => {
  let store: TestStore;
  const count = async () =>
    Number((await sql<{ n: number }>`select count(*) as n from guarded`.execute(store.db)).rows[0]!.n);

  beforeAll(async () => {
    store = await openTestStore(backend);
    await sql`create table guarded (id integer primary key, amount double precision not null)`.execute(
      store.db,
    );
  });
  afterAll(() => store.destroy());

  it.each([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN])(
    'a statement carrying %s is refused as a 400 and its transaction writes nothing',
    async (value) => {
      const before = await count();
      const attempt = store.db.transaction().execute(async (trx) => {
        await sql`insert into guarded (id, amount) values (${before + 1}, ${1.5})`.execute(trx);
        await sql`insert into guarded (id, amount) values (${before + 2}, ${value})`.execute(trx);
      });
      await expect(attempt).rejects.toBeInstanceOf(InvalidRequestError);
      expect(await count()).toBe(before);
    },
  );

  it('lets finite numbers through, in queries built by Kysely too', async () => {
    const before = await count();
    await sql`insert into guarded (id, amount) values (${before + 100}, ${-2.25})`.execute(store.db);
    expect(await count()).toBe(before + 1);
    await expect(
      sql`select * from guarded where amount < ${Number.POSITIVE_INFINITY}`.execute(store.db),
    ).rejects.toBeInstanceOf(InvalidRequestError);
  });
});
