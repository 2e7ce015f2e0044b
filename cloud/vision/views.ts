/** Rows as the API shows them: parsed JSON, booleans, and the documented record fields. */
import { finite, parseJson } from './synced.ts';
import type {
  VisionCameraRow,
  VisionDetectionRow,
  VisionLaneRow,
  VisionOccupancyRow,
  VisionTrackRow,
  VisionVerificationRow,
} from './tables.ts';

/** A lane whose state is older than this, or whose camera is offline, is shown `stale`. */
export const STALE_AFTER_MS = 2 * 60_000;

const list = (json: string): Array<Record<string, unknown>> => {
  const value = parseJson(json);
  return Array.isArray(value) ? value.filter((item) => item !== null && typeof item === 'object') : [];
};
const record = (json: string): Record<string, unknown> => {
  const value = parseJson(json);
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
};
const number = (value: unknown) => finite(value) ?? 0;
const items = (json: string) =>
  list(json).map((item) => ({ name: String(item.name ?? ''), quantity: number(item.quantity) }));

export const toCamera = (row: VisionCameraRow) => ({
  id: row.id,
  name: row.name,
  type: row.type,
  status: row.status,
  fps: row.fps,
  last_detection: row.last_detection,
  location_id: row.location_id,
  enabled: row.enabled === 1,
  zones: list(row.zones).map((zone) => ({
    name: String(zone.name ?? ''),
    polygon: Array.isArray(zone.polygon) ? (zone.polygon as number[][]) : [],
  })),
  model: row.model,
  updated_at: row.updated_at,
});
export type Camera = ReturnType<typeof toCamera>;

/** The camera's settings as the store last synced them. */
export const syncedSettings = (row: VisionCameraRow) => record(row.settings);

export function toDriveThruStatus(lane: VisionLaneRow, camera: VisionCameraRow | undefined, now: Date) {
  const newest = [lane.updated_at, camera?.updated_at ?? ''].sort().at(-1)!;
  const counts = record(lane.counts);
  return {
    location_id: lane.location_id,
    camera_id: lane.camera_id,
    queue_length: lane.queue_length,
    estimated_wait_seconds: lane.estimated_wait_seconds,
    cars: list(lane.cars).map((car) => ({
      position: number(car.position),
      wait_seconds: number(car.wait_seconds),
    })),
    orders_per_hour: lane.orders_per_hour,
    status: lane.status,
    counts: {
      completed: number(counts.completed),
      pulled_forward: number(counts.pulled_forward),
      balked: number(counts.balked),
    },
    updated_at: lane.updated_at,
    stale: camera?.status !== 'online' || now.getTime() - Date.parse(newest) > STALE_AFTER_MS,
  };
}

export const toOccupancy = (row: VisionOccupancyRow) => {
  const dining = record(row.dining_room);
  const parking = record(row.parking);
  return {
    location_id: row.location_id,
    timestamp: row.timestamp,
    dining_room: {
      current: number(dining.current),
      capacity: number(dining.capacity),
      utilization: number(dining.utilization),
    },
    parking: {
      occupied: number(parking.occupied),
      total: number(parking.total),
      utilization: number(parking.utilization),
    },
  };
};

export const toDetection = (row: VisionDetectionRow) => ({
  id: row.id,
  camera_id: row.camera_id,
  location_id: row.location_id,
  track_id: row.track_id,
  name: row.name,
  confidence: row.confidence,
  box: (parseJson(row.box) as number[] | undefined) ?? [],
  detected_at: row.detected_at,
  snapshot: row.snapshot,
});

const TRACK_TIMES = ['menu_board', 'pay_window', 'pickup_window', 'pull_forward', 'total'] as const;

export const toTrack = (row: VisionTrackRow) => {
  const times = record(row.times);
  return {
    id: row.id,
    camera_id: row.camera_id,
    location_id: row.location_id,
    entered_at: row.entered_at,
    left_at: row.left_at,
    outcome: row.outcome,
    order_id: row.order_id,
    pulled_forward: row.pulled_forward === 1,
    times: Object.fromEntries(TRACK_TIMES.map((point) => [point, finite(times[point])])) as Record<
      (typeof TRACK_TIMES)[number],
      number | null
    >,
    events: list(row.events).map((event) => ({
      kind: String(event.kind ?? ''),
      ...(typeof event.zone === 'string' ? { zone: event.zone } : {}),
      at: String(event.at ?? ''),
    })),
  };
};

export const toVerification = (row: VisionVerificationRow) => ({
  verified: row.verified === 1,
  detections: list(row.detections).map((detection) => ({
    name: String(detection.name ?? ''),
    confidence: number(detection.confidence),
    matched: detection.matched === true,
  })),
  missing_items: items(row.missing_items),
  extra_items: items(row.extra_items),
  order_id: row.order_id,
  camera_id: row.camera_id,
  location_id: row.location_id,
  verification_id: row.id,
  trigger: row.trigger,
  verified_at: row.created_at,
});
