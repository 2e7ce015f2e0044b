import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 16,
  name: 'vision-cameras',
  up(db) {
    db.exec(`
      -- The store's cameras as managers registered them. Local only, never synced: a source URL
      -- holds a LAN address and often the camera's password. Zones are named polygons (JSON, in
      -- order) in pixels of zones_resolution, the inference resolution they were drawn at; the
      -- live figures (online, fps, last detection) are the pipeline's and kept in memory.
      create table vision_cameras (
        id text primary key,
        name text not null collate nocase unique,
        type text not null check (type in ('drive_thru_lane', 'pickup_window', 'dining_room', 'parking', 'food_recognition')),
        source_url text not null,
        enabled integer not null default 1 check (enabled in (0, 1)),
        zones text not null default '[]',
        zones_resolution text,
        created_at text not null,
        updated_at text not null
      );
    `);
  },
};
