import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 10,
  name: 'sync',
  up(db) {
    db.exec(`
      -- A change carries what it was based on, the row as it was written, and its clock, so a
      -- push needs no read of the live row and a repeat is byte-for-byte the same change.
      alter table outbox add column base_version integer not null default 0;
      alter table outbox add column hlc text;
      alter table outbox add column fields text;
      alter table outbox add column doc text;
      -- What the cloud answered: applied, duplicate, conflict or rejected (with its reason).
      alter table outbox add column outcome text;
      alter table outbox add column outcome_reason text;
      create index outbox_row on outbox (table_name, row_id) where pushed_at is null;

      -- Where this appliance is with the cloud; a single row.
      create table sync_state (
        id integer primary key check (id = 1),
        initialized integer not null default 0,
        cursor integer not null default 0,
        snapshot_after text,
        snapshot_cursor integer,
        last_push_at text,
        last_pull_at text,
        last_success_at text,
        last_error text,
        conflicts integer not null default 0,
        rejected integer not null default 0
      );
      insert into sync_state (id) values (1);

      -- Punches become merge rows: edited in place (a correction changes at, reason, corrected_by)
      -- and kept as Yjs documents so edits at the store and in the cloud both survive.
      alter table time_punches add column note text;
      alter table time_punches add column version integer not null default 1;
      alter table time_punches add column updated_at text;
      alter table time_punches add column doc text;

      -- A recipe travels whole, as one row per menu item; this is that row's version.
      create table recipe_versions (
        menu_item_id text primary key,
        version integer not null
      );
    `);
  },
};
