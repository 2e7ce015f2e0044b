import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 11,
  name: 'location-upsert',
  up(db) {
    db.exec(`
      -- The single-row guard fired on every upsert of the store's own row, even one that ends as
      -- an update (the cloud's settings winning a conflict): only another location is refused.
      drop trigger location_settings_single_row;
      create trigger location_settings_single_row before insert on location_settings
        when exists (select 1 from location_settings where location_id <> new.location_id)
        begin
          select raise(abort, 'location_settings holds a single row');
        end;
    `);
  },
};
