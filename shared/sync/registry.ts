import { DEVICE_TYPES } from '../mqtt/topics.ts';

/**
 * The synced tables: for each, how a conflict is settled, which way its rows travel, whose rows
 * they are, and the fields a change carries. Both sides read this one list; a table missing from
 * it never leaves the appliance (tickets, sessions, login throttles, order-number counters).
 *
 * Strategies:
 * - `server_wins`: a change names the row version it was based on; when the cloud's row moved on
 *   since, the cloud's row stands, the conflict is recorded and the appliance is rewritten to it.
 * - `merge`: the row is a Yjs document of fields; both sides' edits survive, and two edits of the
 *   same field settle on the one with the greater hybrid logical clock (see merge-doc.ts).
 * - `append_only`: rows are written once and never changed, so there is nothing to conflict: each
 *   side adds the other's rows once (by id). Stock moves this way, as deltas, so a sale at the
 *   store and a delivery booked in the cloud while they were apart both count.
 */
export type SyncStrategy = 'server_wins' | 'merge' | 'append_only';
/** `up`: appliance to cloud only; `down`: cloud to appliance only; `both`: either side writes. */
export type SyncDirection = 'up' | 'down' | 'both';
/** `location`: the row belongs to one store; `tenant`: every store of the tenant receives it. */
export type SyncScope = 'location' | 'tenant';

/** Column types as they travel: `?` marks a column that may be null. */
export type ColumnType = 'text' | 'text?' | 'integer' | 'integer?' | 'json';

export interface SyncTable {
  strategy: SyncStrategy;
  direction: SyncDirection;
  scope: SyncScope;
  /** The column that identifies a row (its `row_id` in a change). */
  key: string;
  /** The fields a change carries, the key included; columns not named here stay local. */
  columns: Record<string, ColumnType>;
  /** Closed sets of values, checked on arrival. */
  enums?: Record<string, readonly string[]>;
  /** Why the rule was chosen, for the README and whoever changes it. */
  why: string;
}

const ORDER_STATUSES = ['open', 'sent', 'ready', 'completed', 'cancelled'] as const;

export const SYNC_TABLES = {
  orders: {
    strategy: 'server_wins',
    direction: 'both',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      number: 'text',
      business_day: 'text',
      order_type: 'text',
      status: 'text',
      table_label: 'text?',
      server_id: 'text?',
      server_name: 'text?',
      subtotal_minor: 'integer',
      tax_minor: 'integer',
      total_minor: 'integer',
      created_at: 'text',
      updated_at: 'text',
    },
    enums: {
      order_type: ['dine_in', 'takeout', 'drive_thru', 'delivery'],
      status: ORDER_STATUSES,
    },
    why: 'An order is one story told in order; head office may void or adjust it, and then its word stands.',
  },
  order_items: {
    strategy: 'server_wins',
    direction: 'both',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      order_id: 'text',
      menu_item_id: 'text',
      name: 'text',
      quantity: 'integer',
      unit_price_minor: 'integer',
      modifiers: 'json',
      notes: 'text?',
      status: 'text',
      position: 'integer',
      updated_at: 'text',
    },
    enums: { status: ['pending', 'sent', 'complete'] },
    why: 'Items follow their order.',
  },
  payments: {
    strategy: 'server_wins',
    direction: 'both',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      order_id: 'text',
      method: 'text',
      status: 'text',
      amount_minor: 'integer',
      tip_minor: 'integer',
      refunded_minor: 'integer',
      card_brand: 'text?',
      card_last4: 'text?',
      transaction_id: 'text?',
      failure_reason: 'text?',
      created_at: 'text',
      updated_at: 'text',
    },
    enums: { method: ['card', 'cash'], status: ['authorized', 'captured', 'voided', 'failed'] },
    why: 'Money is settled by whoever saw the processor last; a refund booked at head office wins.',
  },
  menu_categories: {
    strategy: 'server_wins',
    direction: 'both',
    scope: 'location',
    key: 'id',
    columns: { id: 'text', name: 'text', position: 'integer', updated_at: 'text' },
    why: 'The menu is head office’s; a store’s own change stands until head office changes the same row.',
  },
  menu_items: {
    strategy: 'server_wins',
    direction: 'both',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      category_id: 'text',
      name: 'text',
      description: 'text',
      price_minor: 'integer',
      available: 'integer',
      updated_at: 'text',
    },
    why: 'By design: prices and items are head office’s to decide.',
  },
  location_settings: {
    strategy: 'server_wins',
    direction: 'both',
    scope: 'location',
    key: 'location_id',
    columns: {
      location_id: 'text',
      name: 'text',
      timezone: 'text',
      currency: 'text',
      tax_rate_bps: 'integer',
      business_day_starts_at: 'text',
      status: 'text',
      hours: 'json',
      updated_at: 'text',
    },
    enums: { status: ['open', 'closed', 'temporarily_closed'] },
    why: 'Tax rates and hours are set centrally; a manager closing the store early is kept unless head office changed the settings meanwhile.',
  },
  inventory_items: {
    strategy: 'server_wins',
    direction: 'both',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      name: 'text',
      unit: 'text',
      reorder_level_milli: 'integer',
      reorder_quantity_milli: 'integer',
      updated_at: 'text',
    },
    why: 'The item’s definition only: its quantity is never sent, each side sums the movements instead.',
  },
  inventory_movements: {
    strategy: 'append_only',
    direction: 'both',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      inventory_item_id: 'text',
      kind: 'text',
      delta_milli: 'integer',
      reference: 'text?',
      created_at: 'text',
    },
    enums: { kind: ['sale', 'restock', 'count'] },
    why: 'Deltas add up whatever order they arrive in, so no sale or restock on either side is lost.',
  },
  recipes: {
    strategy: 'server_wins',
    direction: 'both',
    scope: 'location',
    key: 'menu_item_id',
    columns: { menu_item_id: 'text', components: 'json' },
    why: 'A recipe is replaced whole, so it travels whole: one row per menu item.',
  },
  stations: {
    strategy: 'server_wins',
    direction: 'both',
    scope: 'location',
    key: 'id',
    columns: { id: 'text', name: 'text', position: 'integer', updated_at: 'text' },
    why: 'Kitchen layout is configuration, like the menu.',
  },
  station_items: {
    strategy: 'server_wins',
    direction: 'both',
    scope: 'location',
    key: 'menu_item_id',
    columns: { menu_item_id: 'text', station_id: 'text' },
    why: 'Routing is configuration, like the menu.',
  },
  time_punches: {
    strategy: 'merge',
    direction: 'both',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      staff_id: 'text',
      kind: 'text',
      at: 'text',
      note: 'text?',
      corrected_by: 'text?',
      reason: 'text?',
      created_at: 'text',
    },
    enums: { kind: ['clock_in', 'clock_out', 'break_start', 'break_end'] },
    why: 'By design: a manager at the store and payroll at head office both edit punches, and neither edit may be lost.',
  },
  staff: {
    strategy: 'server_wins',
    direction: 'down',
    scope: 'tenant',
    key: 'id',
    columns: {
      id: 'text',
      tenant_id: 'text',
      email: 'text',
      username: 'text?',
      display_name: 'text',
      roles: 'json',
      pin_hash: 'text?',
      status: 'text',
      updated_at: 'text',
    },
    enums: { status: ['active', 'disabled'] },
    why: 'People and their PIN hashes are managed in the cloud only; a store never edits them.',
  },
  store_devices: {
    strategy: 'server_wins',
    direction: 'up',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      location_id: 'text',
      device_type: 'text',
      status: 'text',
      firmware: 'text?',
      first_seen_at: 'text',
      last_seen_at: 'text',
      updated_at: 'text',
    },
    enums: { device_type: DEVICE_TYPES, status: ['online', 'offline'] },
    why: 'Only the store’s broker sees its devices, so only the store writes these rows, each version replacing the last; a change is made when a device comes, goes or changes firmware (and its last sighting at most every few minutes), never per message. server_wins settles the one clash possible, a store rebuilt from empty: the cloud’s row stands and the store carries on from its version.',
  },
  device_telemetry_minutes: {
    strategy: 'append_only',
    direction: 'up',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      device_id: 'text',
      location_id: 'text',
      minute: 'text',
      samples: 'integer',
      metrics: 'json',
    },
    why: 'A minute that has passed never changes, so its summary is written once. The store keeps every sample for its own charts; the cloud gets one row per device and minute (count, min, max, mean, last per metric), which bounds sync volume whatever rate a sensor reports at.',
  },
  vision_camera_states: {
    strategy: 'server_wins',
    direction: 'up',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      name: 'text',
      type: 'text',
      enabled: 'integer',
      status: 'text',
      fps: 'json',
      last_detection: 'text?',
      zones: 'json',
      settings: 'json',
      model: 'text?',
      updated_at: 'text',
    },
    enums: {
      type: ['drive_thru_lane', 'pickup_window', 'dining_room', 'parking', 'food_recognition'],
      status: ['online', 'offline'],
    },
    why: 'A camera as its store runs it (its source URL, holding a LAN address and often a password, stays local): registered, changed and watched only at the store, so only the store writes it; written when its status, settings or zones change and its figures at most every minute. The cloud asks for changes through the fleet link and sees them come back here.',
  },
  vision_detections: {
    strategy: 'append_only',
    direction: 'up',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      camera_id: 'text',
      track_id: 'text?',
      name: 'text',
      confidence: 'json',
      box: 'json',
      detected_at: 'text',
      snapshot: 'text?',
    },
    why: 'An object first seen by a camera (a car entering the lane, a person in the dining room) happens once; one row per new track, not per frame, bounds the volume whatever the frame rate. The snapshot file stays at the store; its name travels.',
  },
  vision_tracks: {
    strategy: 'append_only',
    direction: 'up',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      camera_id: 'text',
      entered_at: 'text',
      left_at: 'text',
      outcome: 'text',
      order_id: 'text?',
      pulled_forward: 'integer',
      times: 'json',
      events: 'json',
    },
    enums: { outcome: ['served', 'balked', 'lost'] },
    why: 'A car’s visit is written once, when it has left the lane, with its times, its events and the order paid for while it stood at the pay window.',
  },
  vision_verifications: {
    strategy: 'append_only',
    direction: 'up',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      order_id: 'text',
      camera_id: 'text',
      trigger: 'text',
      verified: 'integer',
      detections: 'json',
      missing_items: 'json',
      extra_items: 'json',
      snapshot: 'text?',
      created_at: 'text',
    },
    enums: { trigger: ['order_ready', 'on_demand'] },
    why: 'Each check of an order at the pickup window is a fact of its moment; a later check is a new row, never an edit.',
  },
  vision_model_minutes: {
    strategy: 'append_only',
    direction: 'up',
    scope: 'location',
    key: 'id',
    columns: {
      id: 'text',
      camera_id: 'text',
      model_id: 'text',
      model_version: 'text',
      minute: 'text',
      metrics: 'json',
    },
    why: 'As with device telemetry: a minute that has passed never changes, so each camera’s figures for it (frames, inferences, skips, latency percentiles, detections) are written once, and the model metrics of any period are summed from them.',
  },
  vision_lane_states: {
    strategy: 'server_wins',
    direction: 'up',
    scope: 'location',
    key: 'camera_id',
    columns: {
      camera_id: 'text',
      queue_length: 'integer',
      estimated_wait_seconds: 'integer',
      orders_per_hour: 'json',
      status: 'text',
      cars: 'json',
      counts: 'json',
      updated_at: 'text',
    },
    enums: { status: ['normal', 'busy', 'critical'] },
    why: 'The lane as its camera last saw it, one row per lane camera, replaced when the queue changes (at most every few seconds), so head office sees each store’s drive-thru without a change per frame.',
  },
  vision_occupancy: {
    strategy: 'server_wins',
    direction: 'up',
    scope: 'location',
    key: 'location_id',
    columns: { location_id: 'text', timestamp: 'text', dining_room: 'json', parking: 'json' },
    why: 'The store’s occupancy as last counted, replaced when it changes (at most every few seconds).',
  },
  events: {
    strategy: 'append_only',
    direction: 'up',
    scope: 'location',
    key: 'id',
    columns: { id: 'text', type: 'text', location_id: 'text', occurred_at: 'text', data: 'json' },
    why: 'Domain events happen once, at the store; the cloud keeps them for webhooks and alerting.',
  },
} as const satisfies Record<string, SyncTable>;

export type SyncTableName = keyof typeof SYNC_TABLES;

export const SYNC_TABLE_NAMES = Object.keys(SYNC_TABLES) as SyncTableName[];

export const isSyncTable = (name: string): name is SyncTableName => Object.hasOwn(SYNC_TABLES, name);

export const syncTable = (name: SyncTableName): SyncTable => SYNC_TABLES[name];

/** Whether the appliance may send changes of this table up. */
export const travelsUp = (name: SyncTableName) => SYNC_TABLES[name].direction !== 'down';
/** Whether the cloud sends changes of this table down. */
export const travelsDown = (name: SyncTableName) => SYNC_TABLES[name].direction !== 'up';

/** A change's fields for one table as the row stores them, and back. */
export type Fields = Record<string, unknown>;
