import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSnapshotStore, scheduleRetention } from '../../../../appliance/vision/record/retention.ts';
import { createManualClock } from '../../../../shared/clock.ts';

const log = pino({ level: 'silent' });
const NOW = '2026-03-20T12:00:00.000Z';

/** A file of `bytes` bytes at `root/relative` with its mtime set to `mtime`. */
function put(root: string, relative: string, mtime: string, bytes = 100) {
  const file = join(root, relative);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, Buffer.alloc(bytes));
  const at = new Date(mtime);
  utimesSync(file, at, at);
  return file;
}

const grey = (width = 64, height = 48) => ({ data: Buffer.alloc(width * height * 3, 128), width, height });

describe('snapshot retention', () => {
  let base: string;
  let root: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'vision-retention-'));
    root = join(base, 'snapshots');
    mkdirSync(root);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const makeStore = (overrides: Partial<Parameters<typeof createSnapshotStore>[0]> = {}) =>
    createSnapshotStore({
      dir: root,
      retentionDays: 14,
      budgetBytes: 1_000_000,
      clock: createManualClock(NOW),
      log,
      ...overrides,
    });

  it('deletes days past video_retention_days and keeps recent ones', async () => {
    const old = put(root, '2026-03-01/cam/a.jpg', '2026-03-01T10:00:00Z');
    const oldByMtime = put(root, '2026-03-06/cam/b.jpg', '2026-03-06T06:00:00Z');
    const boundaryKept = put(root, '2026-03-06/cam/c.jpg', '2026-03-06T18:00:00Z');
    const recent = put(root, '2026-03-19/cam/d.jpg', '2026-03-19T10:00:00Z');
    const oldDayRecentMtime = put(root, '2026-02-01/cam/e.jpg', '2026-03-19T10:00:00Z');
    const stalePart = put(root, '2026-03-19/cam/f.jpg.1234.part', '2026-03-20T10:00:00Z');
    const livePart = put(root, '2026-03-19/cam/g.jpg.5678.part', '2026-03-20T11:59:00Z');

    const removed = await makeStore().purge();

    expect(removed).toEqual({ files: 4, bytes: 400 });
    for (const gone of [old, oldByMtime, oldDayRecentMtime, stalePart]) expect(existsSync(gone)).toBe(false);
    for (const kept of [boundaryKept, recent, livePart]) expect(existsSync(kept)).toBe(true);
    expect(existsSync(join(root, '2026-03-01'))).toBe(false);
    expect(existsSync(join(root, '2026-02-01'))).toBe(false);
  });

  it('ignores foreign files and links, and never touches anything outside its dir', async () => {
    const outside = put(base, 'outside.jpg', '2020-01-01T00:00:00Z');
    const sibling = put(base, 'snapshots-other/2020-01-01/cam/x.jpg', '2020-01-01T00:00:00Z');
    const notes = put(root, '2020-01-01/cam/notes.txt', '2020-01-01T00:00:00Z');
    const loose = put(root, 'loose.jpg', '2020-01-01T00:00:00Z');
    const notADay = put(root, 'exports/cam/x.jpg', '2020-01-01T00:00:00Z');
    mkdirSync(join(root, '2020-01-02/cam'), { recursive: true });
    symlinkSync(outside, join(root, '2020-01-02/cam/link.jpg'));
    symlinkSync(join(base, 'snapshots-other/2020-01-01'), join(root, '2020-01-03'));

    const store = makeStore({ budgetBytes: 1 });
    expect(await store.purge()).toEqual({ files: 0, bytes: 0 });
    expect(await store.enforceBudget()).toEqual({ files: 0, bytes: 0 });
    expect(await store.usage()).toEqual({ bytes: 0, files: 0, oldest: undefined });
    for (const kept of [outside, sibling, notes, loose, notADay]) expect(existsSync(kept)).toBe(true);
  });

  it('handles an empty or missing dir', async () => {
    const store = makeStore();
    expect(await store.purge()).toEqual({ files: 0, bytes: 0 });
    expect(await store.usage()).toEqual({ bytes: 0, files: 0, oldest: undefined });
    const missing = makeStore({ dir: join(base, 'never-created') });
    expect(await missing.purge()).toEqual({ files: 0, bytes: 0 });
    expect(await missing.enforceBudget()).toEqual({ files: 0, bytes: 0 });
    expect(await missing.usage()).toEqual({ bytes: 0, files: 0, oldest: undefined });
  });

  it('enforces the budget oldest first, down to its low-water mark', async () => {
    const files = Array.from({ length: 10 }, (_, i) =>
      put(root, `2026-03-${10 + i}/cam/${i}.jpg`, `2026-03-${10 + i}T08:00:00Z`, 1000),
    );
    const store = makeStore({ budgetBytes: 5000, lowWater: 0.9 });
    expect(await store.enforceBudget()).toEqual({ files: 6, bytes: 6000 });
    expect(files.map(existsSync)).toEqual([...Array(6).fill(false), ...Array(4).fill(true)]);
    expect(await store.usage()).toEqual({ bytes: 4000, files: 4, oldest: new Date('2026-03-16T08:00:00Z') });
    expect(await store.enforceBudget()).toEqual({ files: 0, bytes: 0 });
  });

  it('spares the newest file unless it alone is over the budget', async () => {
    const older = put(root, '2026-03-18/cam/a.jpg', '2026-03-18T08:00:00Z', 300);
    const newest = put(root, '2026-03-19/cam/b.jpg', '2026-03-19T08:00:00Z', 950);
    expect(await makeStore({ budgetBytes: 1000 }).enforceBudget()).toEqual({ files: 1, bytes: 300 });
    expect([existsSync(older), existsSync(newest)]).toEqual([false, true]);
    expect(await makeStore({ budgetBytes: 900 }).enforceBudget()).toEqual({ files: 1, bytes: 950 });
  });

  it('saves snapshots by day and camera, dropping the oldest as the budget fills', async () => {
    const probe = await makeStore().save({ frame: grey(), boxes: [], cameraId: 'probe', kind: 'detection' });
    const size = probe!.bytes;
    rmSync(probe!.file);
    const clock = createManualClock(NOW);
    const store = makeStore({ clock, budgetBytes: Math.floor(size * 3.5) });
    const written = [];
    for (let i = 0; i < 5; i += 1) {
      written.push(await store.save({ frame: grey(), boxes: [], cameraId: 'dining', kind: 'detection' }));
      clock.advance(1000);
    }
    expect(written[0]!.file).toBe(join(root, '2026-03-20/dining/2026-03-20T12-00-00-000Z-detection.jpg'));
    expect(written.map((w) => existsSync(w!.file))).toEqual([false, false, true, true, true]);
  });

  it('refuses a snapshot that alone would exceed the budget', async () => {
    const store = makeStore({ budgetBytes: 100 });
    const saved = await store.save({ frame: grey(), boxes: [], cameraId: 'cam', kind: 'verification' });
    expect(saved).toBeUndefined();
    expect(await store.usage()).toMatchObject({ files: 0 });
  });

  it('keeps writes made while a purge runs', async () => {
    for (let i = 0; i < 30; i += 1) put(root, `2026-02-01/cam/${i}.jpg`, '2026-02-01T00:00:00Z');
    for (let i = 0; i < 30; i += 1) put(root, `2026-03-20/cam/old-${i}.jpg`, '2026-03-01T00:00:00Z');
    const store = makeStore();
    const saves = Array.from({ length: 10 }, (_, i) =>
      store.save({
        frame: grey(),
        boxes: [],
        cameraId: 'cam',
        kind: 'detection',
        at: new Date(Date.parse(NOW) + i),
      }),
    );
    const [removed, ...saved] = await Promise.all([store.purge(), ...saves]);
    expect(removed).toMatchObject({ files: 60 });
    for (const s of saved) expect(existsSync(s!.file)).toBe(true);
    expect(await store.usage()).toMatchObject({ files: 10 });
  });

  it('sweeps at once when scheduled, then on its cron, until stopped', async () => {
    const old = put(root, '2026-01-01/cam/a.jpg', '2026-01-01T00:00:00Z');
    const stop = scheduleRetention(makeStore(), log, '7 * * * *');
    await vi.waitFor(() => expect(existsSync(old)).toBe(false));
    stop();
  });
});
