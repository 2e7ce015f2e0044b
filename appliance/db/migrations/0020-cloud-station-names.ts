import type { ApplianceMigration } from './index.ts';

/**
 * Station names were unique in the table itself, as category and stock item names were before
 * migration 12, and for the same harm: a station head office publishes named like one the store
 * made itself ("Grill") failed to land, and with it every pull after. The kitchen service still
 * refuses a duplicate name made here; rows from the cloud land as the cloud has them.
 */
export const migration: ApplianceMigration = {
  version: 20,
  name: 'cloud-station-names',
  rebuildsTables: true,
  up(db) {
    db.exec(`
      create table stations_rebuilt (
        id text primary key,
        name text not null collate nocase,
        position integer not null,
        version integer not null,
        updated_at text not null
      );
      insert into stations_rebuilt select id, name, position, version, updated_at from stations;
      drop table stations;
      alter table stations_rebuilt rename to stations;
      create index stations_by_name on stations (name);
    `);
  },
};
