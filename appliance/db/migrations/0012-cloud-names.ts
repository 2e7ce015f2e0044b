import type { ApplianceMigration } from './index.ts';

/**
 * Category and stock item names were unique in the table itself, so a row from the cloud named
 * like one the store made (head office adds "Buns" while the store has its own) failed to land,
 * and with it every pull after: the store stopped hearing from the cloud for good. The services
 * still refuse a duplicate name made here; rows from the cloud land as the cloud has them.
 * Rebuilt the SQLite way (see `rebuildsTables`).
 */
export const migration: ApplianceMigration = {
  version: 12,
  name: 'cloud-names',
  rebuildsTables: true,
  up(db) {
    db.exec(`
      create table menu_categories_rebuilt (
        id text primary key,
        name text not null collate nocase check (length(trim(name)) > 0),
        position integer not null default 0,
        version integer not null check (version >= 1),
        updated_at text not null
      );
      insert into menu_categories_rebuilt select id, name, position, version, updated_at from menu_categories;
      drop table menu_categories;
      alter table menu_categories_rebuilt rename to menu_categories;
      create index menu_categories_by_name on menu_categories (name);

      create table inventory_items_rebuilt (
        id text primary key,
        name text not null collate nocase,
        unit text not null,
        quantity_milli integer not null,
        reorder_level_milli integer not null check (reorder_level_milli >= 0),
        reorder_quantity_milli integer not null check (reorder_quantity_milli >= 0),
        version integer not null,
        updated_at text not null
      );
      insert into inventory_items_rebuilt
        select id, name, unit, quantity_milli, reorder_level_milli, reorder_quantity_milli, version, updated_at
        from inventory_items;
      drop table inventory_items;
      alter table inventory_items_rebuilt rename to inventory_items;
      create index inventory_items_by_name on inventory_items (name);
    `);
  },
};
