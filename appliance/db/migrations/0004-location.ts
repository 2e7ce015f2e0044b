import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 4,
  name: 'location',
  up(db) {
    db.exec(`
      -- The one store this appliance serves. business_day_starts_at is the local wall-clock time a
      -- new business day begins, so sales after midnight still count towards the night before.
      create table location_settings (
        location_id text primary key,
        name text not null check (length(trim(name)) > 0),
        timezone text not null,
        currency text not null default 'USD' check (length(currency) = 3 and currency = upper(currency)),
        tax_rate_bps integer not null default 0
          check (typeof(tax_rate_bps) = 'integer' and tax_rate_bps between 0 and 10000),
        business_day_starts_at text not null default '04:00'
          check (business_day_starts_at glob '[0-2][0-9]:[0-5][0-9]'),
        status text not null default 'open' check (status in ('open', 'closed', 'temporarily_closed')),
        hours text not null default '{}' check (json_valid(hours)),
        version integer not null check (version >= 1),
        updated_at text not null
      );
      create trigger location_settings_single_row before insert on location_settings
        when (select count(*) from location_settings) > 0
        begin
          select raise(abort, 'location_settings holds a single row');
        end;
    `);
  },
};
