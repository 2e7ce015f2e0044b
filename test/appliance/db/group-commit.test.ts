import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGroupCommit } from '../../../appliance/db/group-commit.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';

describe('group commit', () => {
  let dir: string;
  let db: ApplianceDatabase;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
    db = openApplianceDb(dir, [
      { version: 1, name: 't', up: (d) => d.exec('create table t (id text primary key)') },
    ]);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits one turn’s commands together; a failing one rolls back alone', async () => {
    const commit = createGroupCommit(db);
    const insert = db.prepare('insert into t (id) values (?)');
    const results = await Promise.allSettled([
      commit(() => insert.run('a').changes),
      commit(() => {
        insert.run('b');
        throw new Error('refused half-way');
      }),
      commit(() => insert.run('c').changes),
      commit(() => insert.run('a').changes), // duplicate key: fails, alone
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(db.prepare('select id from t order by id').all()).toEqual([{ id: 'a' }, { id: 'c' }]);
    expect(db.inTransaction).toBe(false);
  });

  it('answers only after the commit: the rows are there when the promise resolves', async () => {
    const commit = createGroupCommit(db);
    const reader = openApplianceDb(dir, [{ version: 1, name: 't', up: () => undefined }]);
    await commit(() => db.prepare('insert into t (id) values (?)').run('x'));
    expect(reader.prepare('select count(*) n from t').get()).toEqual({ n: 1 });
    reader.close();
  });
});
