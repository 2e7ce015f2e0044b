import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 2,
  name: 'staff',
  up(db) {
    db.exec(`
      -- Staff replicated from the cloud (id = the cloud user id), so PIN login works offline.
      create table staff (
        id text primary key,
        tenant_id text not null,
        email text not null,
        username text unique,
        display_name text not null,
        roles text not null,
        pin_hash text,
        status text not null check (status in ('active', 'disabled')),
        version integer not null,
        updated_at text not null
      );
      create index staff_email on staff (tenant_id, email);

      -- The appliance's own ES256 key for the session tokens it signs.
      create table appliance_keys (
        kid text primary key,
        private_key text not null,
        public_jwk text not null,
        created_at text not null
      );

      create table appliance_sessions (
        id text primary key,
        staff_id text not null references staff (id),
        status text not null check (status in ('active', 'ended')),
        created_at text not null,
        expires_at text not null,
        ended_at text
      );
      create index appliance_sessions_staff on appliance_sessions (staff_id);

      -- Failed-login counting per account and per client address, as in the cloud.
      create table login_throttle (
        key text primary key,
        failures integer not null,
        last_failure_at text not null,
        next_attempt_at text,
        locked_until text
      );
    `);
  },
};
