import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createChangeLog } from '../../../appliance/db/change-log.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { migrations } from '../../../appliance/db/migrations/index.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const LOCATION = '01900000-0000-7000-8000-000000000001';
const notes = {
  version: 1000,
  name: 'crash-test-table',
  up: (db: ApplianceDatabase) => db.exec('create table notes (id text primary key, body text not null)'),
};

describe('appliance store', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'appliance-store-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('opens in WAL with FULL sync and applies each migration once', () => {
    const dir = tempDir();
    const first = openApplianceDb(dir, [...migrations, notes]);
    expect(first.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(first.pragma('synchronous', { simple: true })).toBe(2);
    first.close();
    const again = openApplianceDb(dir, [...migrations, notes]);
    const versions = again.prepare('select version from schema_migrations order by version').all();
    expect(versions).toEqual([...migrations.map((m) => ({ version: m.version })), { version: 1000 }]);
    again.close();
  });

  it('writes outbox rows and events only inside the command’s transaction, and rolls them back with it', () => {
    const db = openApplianceDb(tempDir());
    const insertStation = db.prepare(
      "insert into stations (id, name, position, version, updated_at) values (?, ?, 0, 1, '2026-01-01T00:00:00.000Z')",
    );
    const log = createChangeLog(db, { clock: createManualClock(), newId, locationId: LOCATION });
    expect(() => log.emit('order.created', {})).toThrow(/inside the command's transaction/);
    expect(() =>
      db.transaction(() => {
        insertStation.run('n1', 'Grill');
        log.recordChange({ table: 'stations', rowId: 'n1', operation: 'insert', version: 1 });
        log.emit('order.created', { id: 'n1' });
        throw new Error('the command failed half-way');
      })(),
    ).toThrow('half-way');
    const counts = db
      .prepare(
        'select (select count(*) from stations) n, (select count(*) from outbox) o, (select count(*) from events) e',
      )
      .get();
    expect(counts).toEqual({ n: 0, o: 0, e: 0 });

    db.transaction(() => {
      insertStation.run('n2', 'Grill');
      log.recordChange({ table: 'stations', rowId: 'n2', operation: 'insert', version: 1 });
      log.emit('order.created', { id: 'n2' });
    })();
    // The row as written travels with its change; a catalog event is queued for the cloud too.
    const outbox = db
      .prepare(
        'select table_name, row_id, operation, row_version, base_version, fields from outbox order by seq',
      )
      .all() as Array<Record<string, unknown>>;
    expect(outbox.map(({ fields: _, ...rest }) => rest)).toEqual([
      { table_name: 'stations', row_id: 'n2', operation: 'insert', row_version: 1, base_version: 0 },
      {
        table_name: 'events',
        row_id: expect.any(String),
        operation: 'insert',
        row_version: 1,
        base_version: 0,
      },
    ]);
    expect(JSON.parse(outbox[0]?.fields as string)).toEqual({
      id: 'n2',
      name: 'Grill',
      position: 0,
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    expect(() =>
      db.transaction(() =>
        log.recordChange({ table: 'tickets' as never, rowId: 'x', operation: 'insert', version: 1 }),
      )(),
    ).toThrow(/not a table the appliance syncs up/);
    expect(db.prepare('select type, location_id, data from events').get()).toEqual({
      type: 'order.created',
      location_id: LOCATION,
      data: '{"id":"n2"}',
    });
    db.close();
  });

  it('keeps every acknowledged write, exactly once, with its outbox row and event, across kill -9', async () => {
    const dir = tempDir();
    // node itself with tsx's loader, not the tsx wrapper: the process killed must be the writer.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'test/appliance/db/fixtures/writer.ts'), dir],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const acknowledged: string[] = [];
    let buffered = '';
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) if (line !== 'ready') acknowledged.push(line);
        // Mid-burst: the writer is committing as fast as it can when the power goes.
        if (acknowledged.length >= 300 && !child.killed) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((resolve) => child.once('exit', resolve));

    const db = openApplianceDb(dir);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const ids = new Set(
      (db.prepare('select id from stations').all() as Array<{ id: string }>).map((row) => row.id),
    );
    for (const id of acknowledged) expect(ids.has(id)).toBe(true);
    const counts = db
      .prepare(
        "select (select count(*) from stations) n, (select count(*) from outbox where table_name = 'stations') o, (select count(*) from events) e, (select count(*) from outbox where table_name = 'events') d",
      )
      .get() as Record<string, number>;
    // Nothing half-written: each committed station has exactly one outbox row and one event, queued once.
    expect(counts.n).toBeGreaterThanOrEqual(acknowledged.length);
    expect(counts.o).toBe(counts.n);
    expect(counts.e).toBe(counts.n);
    expect(counts.d).toBe(counts.n);
    db.close();
  }, 60_000);
});
