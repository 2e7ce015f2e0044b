import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createChangeLog } from '../../../../appliance/db/change-log.ts';
import { openApplianceDb } from '../../../../appliance/db/index.ts';
import { createVisionHistory } from '../../../../appliance/vision/runtime/history.ts';
import { createManualClock } from '../../../../shared/clock.ts';
import { newId } from '../../../../shared/ids.ts';

describe('the vision history', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function open() {
    const dir = mkdtempSync(join(tmpdir(), 'vision-history-'));
    dirs.push(dir);
    const db = openApplianceDb(dir);
    const clock = createManualClock('2026-06-10T12:00:00.000Z');
    const changes = createChangeLog(db, { clock, newId, locationId: 'loc-1' });
    return { db, history: createVisionHistory(db, changes) };
  }

  const detection = (id: string, at: string) => ({
    id,
    camera_id: 'lane',
    track_id: null,
    name: 'vehicle',
    confidence: 0.91,
    box: [1, 2, 30, 40],
    detected_at: at,
    snapshot: null,
  });

  it('writes each row with its outbox entry, and a minute only once', () => {
    const { db, history } = open();
    history.addDetection(detection('d1', '2026-06-10T11:00:00.000Z'));
    const minute = {
      id: 'lane/2026-06-10T11:00:00.000Z',
      camera_id: 'lane',
      model_id: 'vehicles',
      model_version: '1.0.0',
      minute: '2026-06-10T11:00:00.000Z',
      metrics: { frames_read: 900 },
    };
    history.addMinute(minute);
    history.addMinute(minute);
    const outbox = db.prepare('select table_name, fields from outbox order by rowid').all() as Array<{
      table_name: string;
      fields: string;
    }>;
    expect(outbox.map((row) => row.table_name)).toEqual(['vision_detections', 'vision_model_minutes']);
    expect(JSON.parse(outbox[0]!.fields)).toMatchObject({ id: 'd1', confidence: '0.91', box: '[1,2,30,40]' });
    expect(history.detections('lane', 10)).toEqual([detection('d1', '2026-06-10T11:00:00.000Z')]);
  });

  it('forgets rows past retention, while the outbox still carries those not yet synced', () => {
    const { db, history } = open();
    history.addDetection(detection('old', '2026-05-01T00:00:00.000Z'));
    history.addDetection(detection('new', '2026-06-10T11:00:00.000Z'));
    expect(history.purgeBefore('2026-05-27T12:00:00.000Z')).toBe(1);
    expect(history.detections('lane', 10).map((d) => d.id)).toEqual(['new']);
    const queued = db.prepare("select row_id from outbox where table_name = 'vision_detections'").all();
    expect(queued).toEqual([{ row_id: 'old' }, { row_id: 'new' }]);
  });
});
