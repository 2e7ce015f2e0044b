import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 13,
  name: 'fleet-commands',
  up(db) {
    db.exec(`
      -- Commands the cloud sent over the fleet link: an id is acted on once, however often the
      -- broker delivers it, and what became of it is answered again when it comes round.
      create table fleet_commands (
        id text primary key,
        kind text not null,
        device_id text,
        state text not null,
        received_at text not null,
        finished_at text,
        result text,
        reason text
      );
      create index fleet_commands_open on fleet_commands (state) where finished_at is null;
    `);
  },
};
