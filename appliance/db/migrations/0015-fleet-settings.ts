import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 15,
  name: 'fleet-settings',
  up(db) {
    db.exec(`
      -- Camera, drive-thru and edge settings the cloud pushed over the fleet link, one row per
      -- section ('edge', 'drive_thru', 'camera:<id>'), each replaced whole; the vision pipeline
      -- reads them from here.
      create table appliance_settings (
        section text primary key,
        settings text not null,
        command_id text,
        updated_at text not null
      );
    `);
  },
};
