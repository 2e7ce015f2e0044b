import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 7,
  name: 'inventory',
  up(db) {
    db.exec(`
      -- Quantities are integer thousandths of the unit, so deductions add up exactly.
      create table inventory_items (
        id text primary key,
        name text not null unique collate nocase,
        unit text not null,
        quantity_milli integer not null,
        reorder_level_milli integer not null check (reorder_level_milli >= 0),
        reorder_quantity_milli integer not null check (reorder_quantity_milli >= 0),
        version integer not null,
        updated_at text not null
      );

      -- How much of each stock item one portion of a menu item uses.
      create table recipes (
        menu_item_id text not null,
        inventory_item_id text not null references inventory_items (id),
        quantity_milli integer not null check (quantity_milli > 0),
        primary key (menu_item_id, inventory_item_id)
      );

      -- Every change to a quantity, as a delta: what sync merges, so neither side loses a sale or a restock.
      create table inventory_movements (
        id text primary key,
        inventory_item_id text not null references inventory_items (id),
        kind text not null check (kind in ('sale', 'restock', 'count')),
        delta_milli integer not null,
        reference text,
        created_at text not null
      );
      create unique index inventory_sale_once on inventory_movements (reference, inventory_item_id) where kind = 'sale';
    `);
  },
};
