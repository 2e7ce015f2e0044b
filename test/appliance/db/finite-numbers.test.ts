import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { InvalidRequestError } from '../../../shared/http/errors.ts';

describe('the appliance store refuses numbers no column should hold', () => {
  let dir: string;
  let db: ApplianceDatabase;
  const count = () => (db.prepare('select count(*) as n from guarded').get() as { n: number }).n;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'appliance-finite-'));
    db = openApplianceDb(dir);
    db.exec('create table guarded (id integer primary key, amount real not null)');
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN])(
    'positional and named parameters carrying %s are refused, and the transaction writes nothing',
    (value) => {
      const positional = db.prepare('insert into guarded (amount) values (?)');
      const named = db.prepare('insert into guarded (amount) values (@amount)');
      const before = count();
      const write = db.transaction((amount: number) => {
        positional.run(1.5);
        named.run({ amount });
      });
      expect(() => write(value)).toThrow(InvalidRequestError);
      expect(() => positional.run(value)).toThrow(InvalidRequestError);
      expect(() => db.prepare('select * from guarded where amount < ?').all(value)).toThrow(
        InvalidRequestError,
      );
      expect(count()).toBe(before);
    },
  );

  it('lets finite numbers, text and blobs through', () => {
    const before = count();
    db.prepare('insert into guarded (amount) values (?)').run(-2.25);
    db.prepare('insert into guarded (amount) values (@amount)').run({ amount: 0 });
    expect(db.prepare('select ? as b').pluck().get(Buffer.from('x'))).toEqual(Buffer.from('x'));
    expect(count()).toBe(before + 2);
  });
});
