import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 8,
  name: 'timeclock',
  up(db) {
    db.exec(`
      -- Punches are only ever added: a correction is a new punch that replaces an earlier one, so
      -- both sides of a sync can merge their punches without losing either.
      create table time_punches (
        id text primary key,
        staff_id text not null,
        kind text not null check (kind in ('clock_in', 'clock_out', 'break_start', 'break_end')),
        at text not null,
        replaces text references time_punches (id),
        corrected_by text,
        reason text,
        created_at text not null
      );
      create index time_punches_staff on time_punches (staff_id, at);
      create unique index time_punches_replaced_once on time_punches (replaces) where replaces is not null;
    `);
  },
};
