import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 9,
  name: 'kitchen',
  up(db) {
    db.exec(`
      create table stations (
        id text primary key,
        name text not null unique collate nocase,
        position integer not null,
        version integer not null,
        updated_at text not null
      );

      -- Where a menu item is prepared; an item with no route goes to the first station.
      create table station_items (
        menu_item_id text primary key,
        station_id text not null references stations (id),
        version integer not null
      );

      create table tickets (
        id text primary key,
        order_id text not null,
        order_number text not null,
        station_id text not null references stations (id),
        priority text not null check (priority in ('normal', 'rush')),
        status text not null check (status in ('open', 'done')),
        created_at text not null,
        done_at text,
        version integer not null
      );
      create index tickets_board on tickets (station_id, status);
      create index tickets_order on tickets (order_id);

      create table ticket_items (
        ticket_id text not null references tickets (id),
        order_item_id text not null,
        name text not null,
        quantity integer not null,
        modifiers text not null,
        notes text,
        status text not null check (status in ('pending', 'done')),
        bumped_at text,
        primary key (ticket_id, order_item_id)
      );
    `);
  },
};
