import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 1,
  name: 'change-log',
  up(db) {
    db.exec(`
      -- What sync must push: one row per write to a synced table, written in that write's transaction.
      create table outbox (
        seq integer primary key autoincrement,
        change_id text not null unique,
        table_name text not null,
        row_id text not null,
        operation text not null check (operation in ('insert', 'update', 'delete')),
        row_version integer not null,
        occurred_at text not null,
        pushed_at text
      );
      create index outbox_unpushed on outbox (seq) where pushed_at is null;

      -- Domain events, in the order they happened, written in the transaction that caused them.
      create table events (
        seq integer primary key autoincrement,
        id text not null unique,
        type text not null,
        location_id text not null,
        occurred_at text not null,
        data text not null
      );
    `);
  },
};
