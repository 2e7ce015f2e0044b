/** The local API's shapes as the kiosk reads them (see the route schemas named beside each). */

/** GET /v1/auth/staff */
export interface StaffTile {
  id: string;
  display_name: string;
  identifier: string;
  initials: string;
}

/** GET /v1/sync/status (appliance/sync/index.ts) */
export interface SyncStatus {
  configured: boolean;
  online: boolean;
  queue_depth: number;
  oldest_pending_at: string | null;
  oldest_pending_age_seconds: number;
  last_push_at: string | null;
  last_pull_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  conflicts: number;
  rejected: number;
}

/** GET /v1/devices (appliance/devices/registry/schemas.ts) */
export interface Device {
  id: string;
  device_type: string;
  status: 'online' | 'offline';
  firmware: string | null;
  last_seen_at: string;
  last_telemetry: Record<string, unknown> | null;
  last_telemetry_at: string | null;
  settings: { max_temperature_c?: number; min_temperature_c?: number };
}

export interface DeviceAlert {
  id: string;
  device_id: string;
  source: 'threshold' | 'device';
  type: string;
  severity: string;
  description: string;
  raised_at: string;
  cleared_at: string | null;
}

export interface DevicesTopic {
  items: Device[];
  alerts: DeviceAlert[];
}

/** GET /v1/devices/:id/telemetry */
export interface Telemetry {
  metrics: Record<
    string,
    { min: number; max: number; last: number; points: Array<{ at: string; value: number }> }
  >;
}

/** GET /api/vision/drive-thru/status (appliance/vision/runtime/routes.ts LaneStatusSchema) */
export interface LaneStatus {
  camera_id: string;
  online: boolean;
  queue_length: number;
  estimated_wait_seconds: number;
  cars: Array<{ position: number; wait_seconds: number; track_id: number; zone: string }>;
  orders_per_hour: number;
  status: 'normal' | 'busy' | 'critical';
}

/** GET /api/vision/drive-thru/history */
export interface LaneBucket {
  at: string;
  queue_length_avg: number | null;
  queue_length_max: number | null;
  wait_seconds_avg: number | null;
  cars_served: number;
}

/** GET /v1/vision/cameras/status, the `cameras` topic (appliance/vision/runtime/live-routes.ts) */
export interface CameraStatus {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
  state: 'running' | 'starting' | 'stopped' | 'error';
  reason: string | null;
  fps: number;
  inference_latency_ms: { p50: number | null; p99: number | null };
  frames_dropped_last_minute: number;
  last_frame_at: string | null;
}

/** GET /v1/vision/cameras/:id/live */
export interface LiveDetections {
  frame_at: string | null;
  width: number;
  height: number;
  detections: Array<{
    class: string;
    confidence: number;
    box: [number, number, number, number];
    track_id?: unknown;
  }>;
}

/** A long action in progress or just finished: the `actions` topic. */
export interface LongAction {
  id: string;
  kind: string;
  label: string;
  state: 'running' | 'succeeded' | 'failed';
  progress_pct: number | null;
  detail?: string | null;
}

/** GET /api/vision/verifications (VerificationSchema) */
export interface Verification {
  id: string;
  order_id: string;
  camera_id: string;
  verified: boolean;
  missing_items: Array<{ name: string; quantity: number }>;
  extra_items: Array<{ name: string; quantity: number }>;
  created_at: string;
}

/** GET /v1/commerce/sales/today */
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

export type PunchKind = 'clock_in' | 'clock_out' | 'break_start' | 'break_end';
export type ShiftState = 'off' | 'working' | 'on_break';

/** appliance/timeclock/schemas.ts PunchSchema */
export interface Punch {
  id: string;
  staff_id: string;
  kind: PunchKind;
  at: string;
  note: string | null;
  corrected_by: string | null;
  reason: string | null;
}

export interface Shift {
  state: ShiftState;
  punches: Punch[];
}

/** GET /v1/commerce/timeclock/punches */
export interface DayPunches {
  business_day: string;
  staff: Array<{
    staff_id: string;
    display_name: string | null;
    state: ShiftState;
    worked_minutes: number;
    punches: Punch[];
  }>;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}
