import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 3,
  name: 'menu',
  up(db) {
    db.exec(`
      create table menu_categories (
        id text primary key,
        name text not null collate nocase unique check (length(trim(name)) > 0),
        position integer not null default 0,
        version integer not null check (version >= 1),
        updated_at text not null
      );

      -- Prices in integer minor units (cents); the typeof check keeps a stray 4.5 from being stored.
      create table menu_items (
        id text primary key,
        category_id text not null references menu_categories (id),
        name text not null check (length(trim(name)) > 0),
        description text not null default '',
        price_minor integer not null check (typeof(price_minor) = 'integer' and price_minor >= 0),
        available integer not null default 1 check (available in (0, 1)),
        version integer not null check (version >= 1),
        updated_at text not null
      );
      create index menu_items_by_category on menu_items (category_id, name);
    `);
  },
};
