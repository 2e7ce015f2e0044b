/** The shapes the Stores screens read, as docs/api/cloud.md gives them (only the fields used). */

export interface StoreCamera {
  id: string;
  name: string;
  status: 'online' | 'offline';
  fps: number;
}

/** One item of GET /v1/fleet/stores: a store's live status in one row (queue and lag null: never heard from). */
export interface FleetStore {
  location_id: string;
  name: string;
  brand_id: string;
  region_id: string;
  timezone: string;
  online: boolean;
  last_seen_at: string | null;
  last_push_at: string | null;
  last_pull_at: string | null;
  queue_depth: number | null;
  oldest_pending_at: string | null;
  lag_seconds: number | null;
  conflict_rate: number;
  conflicts_24h: number;
  changes_24h: number;
  devices_total: number;
  devices_offline: number;
  cameras: StoreCamera[];
  certificates_expiring_30d: number;
  appliance_version: string | null;
}

/** GET /v1/fleet/stores/{id}: the list's fields and what the store's page shows besides. */
export interface FleetStoreDetail extends FleetStore {
  address: string | null;
  location_status: 'active' | 'inactive';
  pending_down: number;
  trigger_pending: boolean;
}

export interface Pagination {
  limit: number;
  next_cursor: string | null;
}

export type { Paged } from '../../api.ts';

export interface Named {
  id: string;
  name: string;
}

export interface Location extends Named {
  brand_id: string;
  region_id: string;
  timezone: string;
  address: string | null;
  status: 'active' | 'inactive';
}

export interface SyncStatus {
  location_id: string;
  online: boolean;
  last_seen_at: string | null;
  last_push_at: string | null;
  last_pull_at: string | null;
  queue_depth: number;
  oldest_pending_at: string | null;
  lag_seconds: number;
  pending_down: number;
  changes_24h: number;
  conflicts_24h: number;
  conflict_rate: number;
  trigger_pending: boolean;
}

export type DeviceType = 'kds' | 'printer' | 'sensor' | 'camera' | 'pos' | 'appliance';
export type DeviceState = 'pending_activation' | 'active' | 'online' | 'offline' | 'revoked';

export interface Device {
  id: string;
  location_id: string;
  device_type: DeviceType;
  name: string;
  serial_number: string;
  model: string | null;
  firmware_version: string | null;
  state: DeviceState;
  last_seen_at: string | null;
  enrolled_at: string | null;
  certificate_expires_at: string | null;
}

export type CommandState =
  | 'queued'
  | 'sent'
  | 'acknowledged'
  | 'succeeded'
  | 'failed'
  | 'expired'
  | 'cancelled';

export interface DeviceCommand {
  command_id: string;
  device_id: string;
  state: CommandState;
  result: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}

export interface UpdateStatus extends DeviceCommand {
  version: string | null;
  rollout_id: string | null;
}

export interface Release {
  id: string;
  version: string;
  state: 'available' | 'retired';
  notes: string | null;
  created_at: string;
}

export type RolloutStoreState =
  | 'queued'
  | 'scheduled'
  | 'downloading'
  | 'installing'
  | 'healthy'
  | 'rolled_back'
  | 'failed'
  | 'excluded'
  | 'cancelled';

export interface Rollout {
  id: string;
  version: string;
  state: 'running' | 'paused' | 'halted' | 'completed' | 'aborted';
  halted_reason: string | null;
  window: { start: string; end: string };
  allow_open_hours: boolean;
}

export interface RolloutStore {
  location_id: string;
  device_id: string;
  state: RolloutStoreState;
  progress: number;
  reason: string | null;
  from_version: string | null;
  to_version: string;
}

export interface SalesToday {
  business_day: string;
  currency: string;
  sales_minor: number;
  orders: number;
  average_ticket_minor: number;
  last_week: { business_day: string; sales_minor: number; orders: number; to_same_time_minor: number };
  change_pct: number | null;
  by_hour: Array<{ hour: number; today_minor: number; last_week_minor: number }>;
}

export type OrderStatus = 'open' | 'sent' | 'ready' | 'completed' | 'cancelled';

export interface Order {
  id: string;
  number: string;
  order_type: 'dine_in' | 'takeout' | 'drive_thru' | 'delivery';
  status: OrderStatus;
  table: string | null;
  items: Array<{ quantity: number; status: 'pending' | 'sent' | 'complete' }>;
  total: number;
  created_at: string;
}

/** Commerce lists answer `{data: {items, next_cursor}}`. */
export interface ItemPage<T> {
  items: T[];
  next_cursor: string | null;
}

export interface VisionCamera extends StoreCamera {
  type: 'drive_thru_lane' | 'pickup_window' | 'dining_room' | 'parking' | 'food_recognition';
  enabled: boolean;
}

export interface DriveThruStatus {
  camera_id: string;
  queue_length: number;
  estimated_wait_seconds: number;
  orders_per_hour: number;
  status: 'normal' | 'busy' | 'critical';
  updated_at: string;
  stale: boolean;
}
