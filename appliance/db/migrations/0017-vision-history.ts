import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 17,
  name: 'vision-history',
  up(db) {
    db.exec(`
      -- What the vision pipeline keeps and syncs up (shared/sync/registry.ts says why each travels
      -- as it does). version, where present, is the row's sync version and stays here.
      create table vision_camera_states (
        id text primary key,
        name text not null,
        type text not null,
        enabled integer not null,
        status text not null check (status in ('online', 'offline')),
        fps text not null,
        last_detection text,
        zones text not null,
        settings text not null,
        model text,
        updated_at text not null,
        version integer not null default 1
      );

      create table vision_detections (
        id text primary key,
        camera_id text not null,
        track_id text,
        name text not null,
        confidence text not null,
        box text not null,
        detected_at text not null,
        snapshot text
      );
      create index vision_detections_camera_at on vision_detections (camera_id, detected_at);
      create index vision_detections_at on vision_detections (detected_at);

      create table vision_tracks (
        id text primary key,
        camera_id text not null,
        entered_at text not null,
        left_at text not null,
        outcome text not null check (outcome in ('served', 'balked', 'lost')),
        order_id text,
        pulled_forward integer not null,
        times text not null,
        events text not null
      );
      create index vision_tracks_left_at on vision_tracks (left_at);

      create table vision_verifications (
        id text primary key,
        order_id text not null,
        camera_id text not null,
        trigger text not null check (trigger in ('order_ready', 'on_demand')),
        verified integer not null,
        detections text not null,
        missing_items text not null,
        extra_items text not null,
        snapshot text,
        created_at text not null
      );
      create index vision_verifications_order on vision_verifications (order_id, created_at);
      create index vision_verifications_at on vision_verifications (created_at);

      create table vision_model_minutes (
        id text primary key,
        camera_id text not null,
        model_id text not null,
        model_version text not null,
        minute text not null,
        metrics text not null
      );
      create index vision_model_minutes_model on vision_model_minutes (model_id, minute);

      create table vision_lane_states (
        camera_id text primary key,
        queue_length integer not null,
        estimated_wait_seconds integer not null,
        orders_per_hour text not null,
        status text not null check (status in ('normal', 'busy', 'critical')),
        cars text not null,
        counts text not null,
        updated_at text not null,
        version integer not null default 1
      );

      create table vision_occupancy (
        location_id text primary key,
        timestamp text not null,
        dining_room text not null,
        parking text not null,
        version integer not null default 1
      );
    `);
  },
};
