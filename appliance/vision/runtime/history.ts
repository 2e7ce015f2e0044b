/**
 * What the pipeline keeps of what it saw, in the synced vision tables (shared/sync/registry.ts):
 * each write and its outbox row commit together, so the cloud gets every row once. The rows that
 * describe a state (a camera, a lane, occupancy) are replaced in place with their version bumped;
 * the others are written once.
 */
import type { ApplianceDatabase, ChangeLog } from '../../db/index.ts';
import type { ItemCount } from '../verify/index.ts';

export interface CameraStateRow {
  id: string;
  name: string;
  type: string;
  enabled: number;
  status: 'online' | 'offline';
  fps: number;
  last_detection: string | null;
  zones: unknown;
  settings: unknown;
  model: string | null;
  updated_at: string;
}

export interface DetectionRow {
  id: string;
  camera_id: string;
  track_id: string | null;
  name: string;
  confidence: number;
  box: number[];
  detected_at: string;
  snapshot: string | null;
}

export interface TrackRow {
  id: string;
  camera_id: string;
  entered_at: string;
  left_at: string;
  outcome: 'served' | 'balked' | 'lost';
  order_id: string | null;
  pulled_forward: boolean;
  times: Record<string, number | null>;
  events: Array<Record<string, unknown>>;
}

/** A car's visit as a chart of the lane needs it: its times, outcome and seconds in the lane. */
export interface LaneVisitRow {
  camera_id: string;
  entered_at: string;
  left_at: string;
  outcome: TrackRow['outcome'];
  total_seconds: number | null;
}

export interface VerificationRow {
  id: string;
  order_id: string;
  camera_id: string;
  trigger: 'order_ready' | 'on_demand';
  verified: boolean;
  detections: Array<{ name: string; confidence: number; matched: boolean }>;
  missing_items: ItemCount[];
  extra_items: ItemCount[];
  snapshot: string | null;
  created_at: string;
}

export interface ModelMinuteRow {
  id: string;
  camera_id: string;
  model_id: string;
  model_version: string;
  minute: string;
  metrics: Record<string, unknown>;
}

export interface LaneStateRow {
  camera_id: string;
  queue_length: number;
  estimated_wait_seconds: number;
  orders_per_hour: number;
  status: 'normal' | 'busy' | 'critical';
  cars: Array<{ position: number; wait_seconds: number; track_id: number; zone: string }>;
  counts: Record<string, number>;
  updated_at: string;
}

export interface OccupancyRow {
  location_id: string;
  timestamp: string;
  dining_room: { current: number; capacity: number; utilization: number };
  parking: { occupied: number; total: number; utilization: number };
}

const json = (value: unknown) => JSON.stringify(value);
const parse = <T>(text: string): T => JSON.parse(text) as T;

/** A row as SQLite gives it back: JSON columns as text. */
type Stored<T> = {
  [K in keyof T]: T[K] extends string | null ? T[K] : T[K] extends boolean ? number : string;
};

export function createVisionHistory(db: ApplianceDatabase, changes: ChangeLog) {
  const statements = {
    cameraVersion: db.prepare<[string], { version: number }>(
      'select version from vision_camera_states where id = ?',
    ),
    upsertCamera: db.prepare(
      `insert into vision_camera_states (id, name, type, enabled, status, fps, last_detection, zones, settings, model, updated_at, version)
       values (@id, @name, @type, @enabled, @status, @fps, @last_detection, @zones, @settings, @model, @updated_at, @version)
       on conflict (id) do update set name = excluded.name, type = excluded.type, enabled = excluded.enabled,
         status = excluded.status, fps = excluded.fps, last_detection = excluded.last_detection,
         zones = excluded.zones, settings = excluded.settings, model = excluded.model,
         updated_at = excluded.updated_at, version = excluded.version`,
    ),
    insertDetection: db.prepare(
      `insert into vision_detections (id, camera_id, track_id, name, confidence, box, detected_at, snapshot)
       values (@id, @camera_id, @track_id, @name, @confidence, @box, @detected_at, @snapshot)`,
    ),
    detections: db.prepare<[string, number], Stored<DetectionRow>>(
      'select * from vision_detections where camera_id = ? order by detected_at desc, id desc limit ?',
    ),
    insertTrack: db.prepare(
      `insert into vision_tracks (id, camera_id, entered_at, left_at, outcome, order_id, pulled_forward, times, events)
       values (@id, @camera_id, @entered_at, @left_at, @outcome, @order_id, @pulled_forward, @times, @events)`,
    ),
    tracks: db.prepare<[string, number], Stored<TrackRow>>(
      'select * from vision_tracks where left_at >= ? order by left_at desc, id desc limit ?',
    ),
    // By left_at's index: a visit overlapping the range left after it began.
    laneVisits: db.prepare<{ since: string; until: string; camera_id: string | null }, LaneVisitRow>(
      `select camera_id, entered_at, left_at, outcome, json_extract(times, '$.total') as total_seconds
       from vision_tracks where left_at >= @since and entered_at < @until
         and (@camera_id is null or camera_id = @camera_id)
       order by left_at`,
    ),
    insertVerification: db.prepare(
      `insert into vision_verifications (id, order_id, camera_id, trigger, verified, detections, missing_items, extra_items, snapshot, created_at)
       values (@id, @order_id, @camera_id, @trigger, @verified, @detections, @missing_items, @extra_items, @snapshot, @created_at)`,
    ),
    verifications: db.prepare<[string], Stored<VerificationRow>>(
      'select * from vision_verifications where order_id = ? order by created_at desc, id desc',
    ),
    insertMinute: db.prepare(
      `insert or ignore into vision_model_minutes (id, camera_id, model_id, model_version, minute, metrics)
       values (@id, @camera_id, @model_id, @model_version, @minute, @metrics)`,
    ),
    minutes: db.prepare<[string, string], Stored<ModelMinuteRow>>(
      'select * from vision_model_minutes where model_id = ? and minute >= ? order by minute',
    ),
    laneVersion: db.prepare<[string], { version: number }>(
      'select version from vision_lane_states where camera_id = ?',
    ),
    upsertLane: db.prepare(
      `insert into vision_lane_states (camera_id, queue_length, estimated_wait_seconds, orders_per_hour, status, cars, counts, updated_at, version)
       values (@camera_id, @queue_length, @estimated_wait_seconds, @orders_per_hour, @status, @cars, @counts, @updated_at, @version)
       on conflict (camera_id) do update set queue_length = excluded.queue_length,
         estimated_wait_seconds = excluded.estimated_wait_seconds, orders_per_hour = excluded.orders_per_hour,
         status = excluded.status, cars = excluded.cars, counts = excluded.counts,
         updated_at = excluded.updated_at, version = excluded.version`,
    ),
    verification: db.prepare<[string], Stored<VerificationRow>>(
      'select * from vision_verifications where id = ?',
    ),
    upsertReview: db.prepare(
      `insert into vision_verification_reviews (verification_id, camera_id, correct, note, reviewed_by, reviewed_at)
       values (@verification_id, @camera_id, @correct, @note, @reviewed_by, @reviewed_at)
       on conflict (verification_id) do update set correct = excluded.correct, note = excluded.note,
         reviewed_by = excluded.reviewed_by, reviewed_at = excluded.reviewed_at`,
    ),
    accuracy: db.prepare<[string, string], { reviewed: number; correct: number }>(
      `select count(*) as reviewed, coalesce(sum(correct), 0) as correct
       from vision_verification_reviews where camera_id = ? and reviewed_at >= ?`,
    ),
    occupancyVersion: db.prepare<[string], { version: number }>(
      'select version from vision_occupancy where location_id = ?',
    ),
    upsertOccupancy: db.prepare(
      `insert into vision_occupancy (location_id, timestamp, dining_room, parking, version)
       values (@location_id, @timestamp, @dining_room, @parking, @version)
       on conflict (location_id) do update set timestamp = excluded.timestamp,
         dining_room = excluded.dining_room, parking = excluded.parking, version = excluded.version`,
    ),
    occupancy: db.prepare<[string], Stored<OccupancyRow>>(
      'select location_id, timestamp, dining_room, parking from vision_occupancy where location_id = ?',
    ),
  };

  const purges = [
    db.prepare('delete from vision_detections where detected_at < ?'),
    db.prepare('delete from vision_tracks where left_at < ?'),
    db.prepare('delete from vision_verifications where created_at < ?'),
    db.prepare('delete from vision_verification_reviews where reviewed_at < ?'),
    db.prepare('delete from vision_model_minutes where minute < ?'),
  ];

  /** Writes a state row at its next version, with its outbox row. */
  function replace(
    table: 'vision_camera_states' | 'vision_lane_states' | 'vision_occupancy',
    rowId: string,
    current: { version: number } | undefined,
    write: (version: number) => void,
  ) {
    db.transaction(() => {
      const version = (current?.version ?? 0) + 1;
      write(version);
      changes.recordChange({ table, rowId, operation: version === 1 ? 'insert' : 'update', version });
    })();
  }

  function insertOnce(
    table: 'vision_detections' | 'vision_tracks' | 'vision_verifications',
    id: string,
    write: () => void,
  ) {
    db.transaction(() => {
      write();
      changes.recordChange({ table, rowId: id, operation: 'insert', version: 1 });
    })();
  }

  const toDetection = (row: Stored<DetectionRow>): DetectionRow => ({
    ...row,
    confidence: parse<number>(row.confidence),
    box: parse<number[]>(row.box),
  });
  const toTrack = (row: Stored<TrackRow>): TrackRow => ({
    ...row,
    pulled_forward: Boolean(row.pulled_forward),
    times: parse(row.times),
    events: parse(row.events),
  });
  const toVerification = (row: Stored<VerificationRow>): VerificationRow => ({
    ...row,
    verified: Boolean(row.verified),
    detections: parse(row.detections),
    missing_items: parse(row.missing_items),
    extra_items: parse(row.extra_items),
  });

  return {
    saveCameraState(state: CameraStateRow) {
      replace('vision_camera_states', state.id, statements.cameraVersion.get(state.id), (version) =>
        statements.upsertCamera.run({
          ...state,
          fps: json(state.fps),
          zones: json(state.zones),
          settings: json(state.settings),
          version,
        }),
      );
    },
    addDetection(row: DetectionRow) {
      insertOnce('vision_detections', row.id, () =>
        statements.insertDetection.run({ ...row, confidence: json(row.confidence), box: json(row.box) }),
      );
    },
    detections: (cameraId: string, limit: number) =>
      statements.detections.all(cameraId, limit).map(toDetection),
    addTrack(row: TrackRow) {
      insertOnce('vision_tracks', row.id, () =>
        statements.insertTrack.run({
          ...row,
          pulled_forward: row.pulled_forward ? 1 : 0,
          times: json(row.times),
          events: json(row.events),
        }),
      );
    },
    tracksSince: (since: string, limit: number) => statements.tracks.all(since, limit).map(toTrack),
    /** The visits that overlap [since, until), of one lane camera or of all. */
    laneVisits: (since: string, until: string, cameraId?: string): LaneVisitRow[] =>
      statements.laneVisits.all({ since, until, camera_id: cameraId ?? null }),
    addVerification(row: VerificationRow) {
      insertOnce('vision_verifications', row.id, () =>
        statements.insertVerification.run({
          ...row,
          verified: row.verified ? 1 : 0,
          detections: json(row.detections),
          missing_items: json(row.missing_items),
          extra_items: json(row.extra_items),
        }),
      );
    },
    verificationsOf: (orderId: string) => statements.verifications.all(orderId).map(toVerification),
    verification(id: string): VerificationRow | undefined {
      const row = statements.verification.get(id);
      return row && toVerification(row);
    },
    /** A person's word on a verification; a second review replaces the first. */
    review(review: {
      verification_id: string;
      camera_id: string;
      correct: boolean;
      note: string | null;
      reviewed_by: string;
      reviewed_at: string;
    }) {
      statements.upsertReview.run({ ...review, correct: review.correct ? 1 : 0 });
    },
    /** The camera's verifications people reviewed since `since`, and how many it got right. */
    accuracy: (cameraId: string, since: string) => statements.accuracy.get(cameraId, since)!,
    /** A minute is written once: its id is the camera's and the minute's. */
    addMinute(row: ModelMinuteRow) {
      db.transaction(() => {
        const inserted = statements.insertMinute.run({ ...row, metrics: json(row.metrics) });
        if (inserted.changes === 1)
          changes.recordChange({
            table: 'vision_model_minutes',
            rowId: row.id,
            operation: 'insert',
            version: 1,
          });
      })();
    },
    minutesOf: (modelId: string, since: string) =>
      statements.minutes.all(modelId, since).map((row) => ({
        ...row,
        metrics: parse<Record<string, unknown>>(row.metrics),
      })),
    saveLaneState(state: LaneStateRow) {
      replace('vision_lane_states', state.camera_id, statements.laneVersion.get(state.camera_id), (version) =>
        statements.upsertLane.run({
          ...state,
          orders_per_hour: json(state.orders_per_hour),
          cars: json(state.cars),
          counts: json(state.counts),
          version,
        }),
      );
    },
    saveOccupancy(record: OccupancyRow) {
      replace(
        'vision_occupancy',
        record.location_id,
        statements.occupancyVersion.get(record.location_id),
        (version) =>
          statements.upsertOccupancy.run({
            ...record,
            dining_room: json(record.dining_room),
            parking: json(record.parking),
            version,
          }),
      );
    },
    /**
     * Forgets what happened before `before` (the edge's `video_retention_days`). The outbox keeps
     * its own copy of each row, so rows not yet synced still reach the cloud.
     */
    purgeBefore(before: string): number {
      return db.transaction(() =>
        purges.reduce((sum, statement) => sum + statement.run(before).changes, 0),
      )();
    },
    occupancy(locationId: string): OccupancyRow | undefined {
      const row = statements.occupancy.get(locationId);
      return (
        row && {
          location_id: row.location_id,
          timestamp: row.timestamp,
          dining_room: parse(row.dining_room),
          parking: parse(row.parking),
        }
      );
    },
  };
}

export type VisionHistory = ReturnType<typeof createVisionHistory>;
