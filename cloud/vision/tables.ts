/**
 * What the stores' camera pipelines sync up, as the cloud keeps it to answer from (every row
 * carries its tenant and store), and the settings the cloud asked of a store and awaits.
 * JSON columns hold text; numbers the pipeline reports as JSON are real columns so they can be
 * summed and filtered in SQL.
 */
import { SYNC_TABLES } from '../../shared/sync/registry.ts';

// The closed sets travel with the synced tables: the store and the cloud read the same list.
export const CAMERA_TYPES = SYNC_TABLES.vision_camera_states.enums.type;
export type CameraType = (typeof CAMERA_TYPES)[number];
export const CAMERA_STATUSES = SYNC_TABLES.vision_camera_states.enums.status;
export type CameraStatus = (typeof CAMERA_STATUSES)[number];
export const LANE_STATUSES = SYNC_TABLES.vision_lane_states.enums.status;
export type LaneStatus = (typeof LANE_STATUSES)[number];
export const TRACK_OUTCOMES = SYNC_TABLES.vision_tracks.enums.outcome;
export type TrackOutcome = (typeof TRACK_OUTCOMES)[number];
export const VERIFICATION_TRIGGERS = SYNC_TABLES.vision_verifications.enums.trigger;
export type VerificationTrigger = (typeof VERIFICATION_TRIGGERS)[number];

/** The three settings sections: edge, drive-thru and cameras. */
export const SETTINGS_SECTIONS = ['camera', 'drive_thru', 'edge'] as const;
export type SettingsSection = (typeof SETTINGS_SECTIONS)[number];

/** Times the store wrote are the store's (`updated_at`…); `received_at` is when the cloud got it. */
export interface VisionCameraRow {
  tenant_id: string;
  location_id: string;
  id: string;
  name: string;
  type: CameraType;
  /** 0 or 1. */
  enabled: number;
  status: CameraStatus;
  fps: number;
  last_detection: string | null;
  /** JSON `[{name, polygon}]`. */
  zones: string;
  /** JSON: the camera's effective settings as the store runs them. */
  settings: string;
  model: string | null;
  updated_at: string;
  received_at: string;
}

export interface VisionDetectionRow {
  id: string;
  tenant_id: string;
  location_id: string;
  camera_id: string;
  track_id: string | null;
  name: string;
  confidence: number;
  /** JSON `[x1, y1, x2, y2]` in inference pixels. */
  box: string;
  detected_at: string;
  snapshot: string | null;
}

export interface VisionTrackRow {
  id: string;
  tenant_id: string;
  location_id: string;
  camera_id: string;
  entered_at: string;
  left_at: string;
  outcome: TrackOutcome;
  order_id: string | null;
  /** 0 or 1. */
  pulled_forward: number;
  /** JSON `{menu_board, pay_window, pickup_window, pull_forward, total}` seconds or null. */
  times: string;
  /** JSON `[{kind, zone?, at}]`. */
  events: string;
}

export interface VisionVerificationRow {
  id: string;
  tenant_id: string;
  location_id: string;
  order_id: string;
  camera_id: string;
  trigger: VerificationTrigger;
  /** 0 or 1. */
  verified: number;
  /** JSON `[{name, confidence, matched}]`. */
  detections: string;
  /** JSON `[{name, quantity}]`. */
  missing_items: string;
  extra_items: string;
  snapshot: string | null;
  created_at: string;
}

/** One camera's figures for one minute, flattened from the store's metrics object. */
export interface VisionModelMinuteRow {
  id: string;
  tenant_id: string;
  location_id: string;
  camera_id: string;
  model_id: string;
  model_version: string;
  minute: string;
  frames_read: number;
  frames_inferred: number;
  frames_skipped: number;
  frames_dropped: number;
  detections: number;
  camera_fps: number | null;
  detection_fps: number | null;
  inference_p50: number | null;
  inference_p99: number | null;
  inference_mean: number | null;
  capture_p50: number | null;
  capture_p95: number | null;
  capture_p99: number | null;
}

export interface VisionLaneRow {
  tenant_id: string;
  location_id: string;
  camera_id: string;
  queue_length: number;
  estimated_wait_seconds: number;
  orders_per_hour: number;
  status: LaneStatus;
  /** JSON `[{position, wait_seconds, track_id, zone}]`. */
  cars: string;
  /** JSON `{completed, pulled_forward, balked}`. */
  counts: string;
  updated_at: string;
  received_at: string;
}

export interface VisionOccupancyRow {
  tenant_id: string;
  location_id: string;
  timestamp: string;
  /** JSON `{current, capacity, utilization}`. */
  dining_room: string;
  /** JSON `{occupied, total, utilization}`. */
  parking: string;
  received_at: string;
}

/**
 * The latest settings the cloud asked of one section (a camera, a store's drive-thru, an edge
 * device) and the fleet command carrying them. A camera's is dropped once its synced settings
 * show it; the drive-thru's and the edge's are not synced, so their last confirmed settings
 * (the command succeeded) are kept beside the one awaited.
 */
export interface VisionDesiredSettingsRow {
  tenant_id: string;
  section: SettingsSection;
  /** The camera id, the location id (drive-thru) or the edge's (appliance's) id. */
  target: string;
  location_id: string;
  /** JSON: the section as the PUT gave it (it replaces the section whole). */
  settings: string;
  /** The device registry's command that carries it, and the appliance device it was queued for. */
  command_id: string;
  device_id: string;
  requested_by: string;
  requested_at: string;
  /** JSON: the last settings of this section the appliance confirmed (drive-thru and edge only). */
  confirmed: string | null;
  confirmed_at: string | null;
}

export interface VisionTables {
  vision_cameras: VisionCameraRow;
  vision_detections: VisionDetectionRow;
  vision_tracks: VisionTrackRow;
  vision_verifications: VisionVerificationRow;
  vision_model_minutes: VisionModelMinuteRow;
  vision_lanes: VisionLaneRow;
  vision_occupancy: VisionOccupancyRow;
  vision_desired_settings: VisionDesiredSettingsRow;
}
