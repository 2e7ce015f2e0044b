import type { ApplianceDatabase } from '../db/index.ts';

export type TicketPriority = 'normal' | 'rush';
export type TicketStatus = 'open' | 'done';
export type TicketItemStatus = 'pending' | 'done';

export interface Station {
  id: string;
  name: string;
  position: number;
  version: number;
  updated_at: string;
}

export interface TicketRow {
  id: string;
  order_id: string;
  order_number: string;
  station_id: string;
  priority: TicketPriority;
  status: TicketStatus;
  created_at: string;
  done_at: string | null;
  version: number;
}

export interface TicketItemRow {
  ticket_id: string;
  order_item_id: string;
  name: string;
  quantity: number;
  /** JSON array of modifier names. */
  modifiers: string;
  notes: string | null;
  status: TicketItemStatus;
  bumped_at: string | null;
}

const STATION_COLUMNS = 'id, name, position, version, updated_at';
const TICKET_COLUMNS =
  'id, order_id, order_number, station_id, priority, status, created_at, done_at, version';
const ITEM_COLUMNS = 'ticket_id, order_item_id, name, quantity, modifiers, notes, status, bumped_at';

/** Prepared once; every function runs inside the caller's transaction. */
export function createKitchenStore(db: ApplianceDatabase) {
  const statements = {
    insertStation: db.prepare(
      `insert into stations (${STATION_COLUMNS}) values (@id, @name, @position, @version, @updated_at)`,
    ),
    getStation: db.prepare(`select ${STATION_COLUMNS} from stations where id = ?`),
    findStationByName: db.prepare(`select ${STATION_COLUMNS} from stations where name = ?`),
    listStations: db.prepare(`select ${STATION_COLUMNS} from stations order by position, name`),
    nextPosition: db.prepare('select coalesce(max(position) + 1, 0) as position from stations'),
    route: db.prepare(
      `insert into station_items (menu_item_id, station_id, version) values (?, ?, 1)
       on conflict (menu_item_id) do update set station_id = excluded.station_id, version = version + 1
       returning version`,
    ),
    routes: db.prepare(
      'select menu_item_id, station_id from station_items where menu_item_id in (select value from json_each(?))',
    ),
    insertTicket: db.prepare(
      `insert into tickets (${TICKET_COLUMNS})
       values (@id, @order_id, @order_number, @station_id, @priority, @status, @created_at, @done_at, @version)`,
    ),
    updateTicket: db.prepare(
      `update tickets set priority = @priority, status = @status, done_at = @done_at, version = version + 1
       where id = @id returning version`,
    ),
    getTicket: db.prepare(`select ${TICKET_COLUMNS} from tickets where id = ?`),
    openTickets: db.prepare(
      `select ${TICKET_COLUMNS} from tickets where station_id = ? and status = 'open'
       order by case priority when 'rush' then 0 else 1 end, created_at, id`,
    ),
    openTicketsOfOrder: db.prepare(
      `select ${TICKET_COLUMNS} from tickets where order_id = ? and status = 'open'`,
    ),
    insertItem: db.prepare(
      `insert into ticket_items (${ITEM_COLUMNS})
       values (@ticket_id, @order_item_id, @name, @quantity, @modifiers, @notes, @status, @bumped_at)`,
    ),
    updateItem: db.prepare(
      'update ticket_items set status = @status, bumped_at = @bumped_at where ticket_id = @ticket_id and order_item_id = @order_item_id',
    ),
    // bumped_at stays: it tells a recalled item (already complete on the order) from a new one.
    reopenItems: db.prepare("update ticket_items set status = 'pending' where ticket_id = ?"),
    items: db.prepare(`select ${ITEM_COLUMNS} from ticket_items where ticket_id = ? order by rowid`),
    ticketedOrderItems: db.prepare(
      'select ti.order_item_id from ticket_items ti join tickets t on t.id = ti.ticket_id where t.order_id = ?',
    ),
  };

  return {
    insertStation: (station: Station) => void statements.insertStation.run(station),
    getStation: (id: string) => statements.getStation.get(id) as Station | undefined,
    /** Case-insensitive, like the column. */
    findStationByName: (name: string) => statements.findStationByName.get(name) as Station | undefined,
    listStations: () => statements.listStations.all() as Station[],
    nextStationPosition: () => (statements.nextPosition.get() as { position: number }).position,
    /** Returns the route's new version. */
    route: (menuItemId: string, stationId: string) =>
      (statements.route.get(menuItemId, stationId) as { version: number }).version,
    /** menu item id → station id, for the routed ones among `menuItemIds`. */
    routes: (menuItemIds: string[]) =>
      new Map(
        (
          statements.routes.all(JSON.stringify(menuItemIds)) as Array<{
            menu_item_id: string;
            station_id: string;
          }>
        ).map((row) => [row.menu_item_id, row.station_id]),
      ),
    insertTicket: (ticket: TicketRow) => void statements.insertTicket.run(ticket),
    /** Returns the ticket's new version. */
    updateTicket: (ticket: Pick<TicketRow, 'id' | 'priority' | 'status' | 'done_at'>) =>
      (statements.updateTicket.get(ticket) as { version: number }).version,
    getTicket: (id: string) => statements.getTicket.get(id) as TicketRow | undefined,
    /** Rush first, then oldest first. */
    openTickets: (stationId: string) => statements.openTickets.all(stationId) as TicketRow[],
    openTicketsOfOrder: (orderId: string) => statements.openTicketsOfOrder.all(orderId) as TicketRow[],
    insertItem: (item: TicketItemRow) => void statements.insertItem.run(item),
    updateItem: (item: Pick<TicketItemRow, 'ticket_id' | 'order_item_id' | 'status' | 'bumped_at'>) =>
      void statements.updateItem.run(item),
    reopenItems: (ticketId: string) => void statements.reopenItems.run(ticketId),
    items: (ticketId: string) => statements.items.all(ticketId) as TicketItemRow[],
    ticketedOrderItems: (orderId: string) =>
      new Set(
        (statements.ticketedOrderItems.all(orderId) as Array<{ order_item_id: string }>).map(
          (row) => row.order_item_id,
        ),
      ),
  };
}

export type KitchenStore = ReturnType<typeof createKitchenStore>;
