import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 5,
  name: 'orders',
  up(db) {
    db.exec(`
      -- One counter per business day: numbers restart each day and are never handed out twice.
      create table order_numbers (
        business_day text primary key,
        last_number integer not null
      );

      create table orders (
        id text primary key,
        number text not null,
        business_day text not null,
        order_type text not null check (order_type in ('dine_in', 'takeout', 'drive_thru', 'delivery')),
        status text not null check (status in ('open', 'sent', 'ready', 'completed', 'cancelled')),
        table_label text,
        server_id text,
        server_name text,
        subtotal_minor integer not null,
        tax_minor integer not null,
        total_minor integer not null,
        created_at text not null,
        updated_at text not null,
        version integer not null,
        unique (business_day, number)
      );

      create table order_items (
        id text primary key,
        order_id text not null references orders (id),
        menu_item_id text not null,
        name text not null,
        quantity integer not null check (quantity > 0),
        unit_price_minor integer not null,
        modifiers text not null,
        notes text,
        status text not null check (status in ('pending', 'sent', 'complete')),
        position integer not null,
        version integer not null,
        updated_at text not null
      );
      create index order_items_order on order_items (order_id, position);
    `);
  },
};
