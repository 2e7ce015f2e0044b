import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 14,
  name: 'device-registry',
  up(db) {
    db.exec(`
      -- The store's devices as its broker sees them. The synced columns travel up as
      -- store_devices (shared/sync/registry.ts); version and the columns after it stay here, so
      -- a telemetry sample or a keepalive never becomes a change to push.
      create table store_devices (
        id text primary key,
        location_id text not null,
        device_type text not null,
        status text not null check (status in ('online', 'offline')),
        firmware text,
        first_seen_at text not null,
        last_seen_at text not null,
        updated_at text not null,
        version integer not null default 1,
        last_telemetry text,
        last_telemetry_at text,
        temperature_state text not null default 'ok' check (temperature_state in ('ok', 'high', 'low')),
        synced_seen_at text
      );

      -- Every sample as it arrived (at_ms: when the appliance received it), for the kiosk's charts;
      -- pruned after APPLIANCE_TELEMETRY_RETENTION_DAYS. Never synced: see the minutes below.
      create table device_telemetry (
        id integer primary key autoincrement,
        device_id text not null,
        at_ms integer not null,
        metrics text not null
      );
      create index device_telemetry_device_at on device_telemetry (device_id, at_ms);
      create index device_telemetry_at on device_telemetry (at_ms);

      -- One summary per device and minute that had samples: what the cloud gets instead of each one.
      create table device_telemetry_minutes (
        id text primary key,
        device_id text not null,
        location_id text not null,
        minute text not null,
        samples integer not null,
        metrics text not null,
        unique (device_id, minute)
      );
      create index device_telemetry_minutes_minute on device_telemetry_minutes (minute);

      -- A device's settings from the cloud (a settings command for the device) or a manager:
      -- today its temperature limits, which raise alerts.
      create table device_settings (
        device_id text primary key,
        settings text not null,
        updated_at text not null
      );

      -- What the kiosk shows: threshold breaches and the devices' own alerts, open until cleared.
      create table device_alerts (
        id text primary key,
        device_id text not null,
        source text not null check (source in ('threshold', 'device')),
        type text not null,
        severity text not null,
        description text not null,
        raised_at text not null,
        cleared_at text,
        event_id text
      );
      create index device_alerts_open on device_alerts (device_id) where cleared_at is null;
      create index device_alerts_raised on device_alerts (raised_at);
    `);
  },
};
