/** The vision tables. Every query takes the tenant first; one query each, for both dialects. */
import { type ExpressionBuilder, sql } from 'kysely';
import type { Database, Db } from '../db/index.ts';
import type {
  SettingsSection,
  VisionCameraRow,
  VisionDesiredSettingsRow,
  VisionDetectionRow,
  VisionLaneRow,
  VisionModelMinuteRow,
  VisionOccupancyRow,
  VisionTrackRow,
  VisionVerificationRow,
} from './tables.ts';

/** Rows per insert statement: well under SQLite's limit of bound parameters. */
const CHUNK = 500;

/** Newest first by (time, id): the page after the last row of the previous one. */
export interface Before {
  at: string;
  id: string;
}

async function insertNew<T extends keyof Database>(db: Db, table: T, rows: readonly Database[T][]) {
  for (let start = 0; start < rows.length; start += CHUNK)
    await db
      .insertInto(table)
      .values(rows.slice(start, start + CHUNK) as never)
      .onConflict((c) => c.column('id' as never).doNothing())
      .execute();
}

/** `excluded.<column>` for each column: the store's newer state replaces the row whole. */
const fromExcluded =
  <T extends keyof Database>(columns: ReadonlyArray<keyof Database[T] & string>) =>
  (eb: ExpressionBuilder<never, never>) =>
    Object.fromEntries(columns.map((column) => [column, eb.ref(`excluded.${column}` as never)]));

export const upsertCamera = (db: Db, row: VisionCameraRow) =>
  db
    .insertInto('vision_cameras')
    .values(row)
    .onConflict((c) =>
      c
        .columns(['tenant_id', 'id'])
        .doUpdateSet(
          fromExcluded<'vision_cameras'>([
            'location_id',
            'name',
            'type',
            'enabled',
            'status',
            'fps',
            'last_detection',
            'zones',
            'settings',
            'model',
            'updated_at',
            'received_at',
          ]) as never,
        ),
    )
    .execute();

export const cameras = (db: Db, tenantId: string, filter: { locationId?: string | undefined }) =>
  db
    .selectFrom('vision_cameras')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(filter.locationId !== undefined, (q) => q.where('location_id', '=', filter.locationId!))
    .orderBy('location_id')
    .orderBy('name')
    .orderBy('id')
    .execute();

/** The cameras of these stores of the tenant, by store, then name. */
export const camerasAt = (db: Db, tenantId: string, locationIds: readonly string[]) =>
  locationIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('vision_cameras')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('location_id', 'in', locationIds)
        .orderBy('location_id')
        .orderBy('name')
        .orderBy('id')
        .execute();

export const camera = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('vision_cameras')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const upsertLane = (db: Db, row: VisionLaneRow) =>
  db
    .insertInto('vision_lanes')
    .values(row)
    .onConflict((c) =>
      c
        .columns(['tenant_id', 'camera_id'])
        .doUpdateSet(
          fromExcluded<'vision_lanes'>([
            'location_id',
            'queue_length',
            'estimated_wait_seconds',
            'orders_per_hour',
            'status',
            'cars',
            'counts',
            'updated_at',
            'received_at',
          ]) as never,
        ),
    )
    .execute();

export const lanes = (
  db: Db,
  tenantId: string,
  filter: { locationId?: string | undefined; cameraId?: string | undefined },
  limit: number,
) =>
  db
    .selectFrom('vision_lanes')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(filter.locationId !== undefined, (q) => q.where('location_id', '=', filter.locationId!))
    .$if(filter.cameraId !== undefined, (q) => q.where('camera_id', '=', filter.cameraId!))
    .orderBy('location_id')
    .orderBy('camera_id')
    .limit(limit)
    .execute();

export const upsertOccupancy = (db: Db, row: VisionOccupancyRow) =>
  db
    .insertInto('vision_occupancy')
    .values(row)
    .onConflict((c) =>
      c
        .columns(['tenant_id', 'location_id'])
        .doUpdateSet(
          fromExcluded<'vision_occupancy'>(['timestamp', 'dining_room', 'parking', 'received_at']) as never,
        ),
    )
    .execute();

export const occupancy = (db: Db, tenantId: string, locationId: string) =>
  db
    .selectFrom('vision_occupancy')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .executeTakeFirst();

/** Append-only rows: a store resending one (an unanswered push) leaves it as it was. */
export const insertDetections = (db: Db, rows: VisionDetectionRow[]) =>
  insertNew(db, 'vision_detections', rows);
export const insertTracks = (db: Db, rows: VisionTrackRow[]) => insertNew(db, 'vision_tracks', rows);
export const insertVerifications = (db: Db, rows: VisionVerificationRow[]) =>
  insertNew(db, 'vision_verifications', rows);
export const insertMinutes = (db: Db, rows: VisionModelMinuteRow[]) =>
  insertNew(db, 'vision_model_minutes', rows);

/** A camera's detections, newest first. */
export const detections = (
  db: Db,
  tenantId: string,
  cameraId: string,
  page: { limit: number; before?: Before | undefined },
) =>
  db
    .selectFrom('vision_detections')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('camera_id', '=', cameraId)
    .$if(page.before !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          eb('detected_at', '<', page.before!.at),
          eb.and([eb('detected_at', '=', page.before!.at), eb('id', '<', page.before!.id)]),
        ]),
      ),
    )
    .orderBy('detected_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();

export interface TrackFilter {
  since: string;
  locationId?: string | undefined;
  cameraId?: string | undefined;
}

/** Cars that left the lane since `since`, newest first. */
export const tracks = (
  db: Db,
  tenantId: string,
  filter: TrackFilter,
  page: { limit: number; before?: Before | undefined },
) =>
  db
    .selectFrom('vision_tracks')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('left_at', '>=', filter.since)
    .$if(filter.locationId !== undefined, (q) => q.where('location_id', '=', filter.locationId!))
    .$if(filter.cameraId !== undefined, (q) => q.where('camera_id', '=', filter.cameraId!))
    .$if(page.before !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          eb('left_at', '<', page.before!.at),
          eb.and([eb('left_at', '=', page.before!.at), eb('id', '<', page.before!.id)]),
        ]),
      ),
    )
    .orderBy('left_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();

/** The store's latest check of an order at a camera. */
export const latestVerification = (db: Db, tenantId: string, orderId: string, cameraId: string) =>
  db
    .selectFrom('vision_verifications')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('order_id', '=', orderId)
    .where('camera_id', '=', cameraId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();

export const modelSeen = async (db: Db, tenantId: string, modelId: string) =>
  (await db
    .selectFrom('vision_model_minutes')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('model_id', '=', modelId)
    .limit(1)
    .executeTakeFirst()) !== undefined;

/**
 * A model's minutes in [from, to) summed per camera. Latencies come back as sums weighted by the
 * minute's inferences, with the inferences that carried a figure, so the caller can take means.
 */
export const modelTotals = (
  db: Db,
  tenantId: string,
  modelId: string,
  window: { from: string; to: string; locationId?: string | undefined },
) => {
  const weighted = (column: keyof VisionModelMinuteRow) =>
    sql<number | null>`sum(${sql.ref(column)} * frames_inferred)`;
  const weight = (column: keyof VisionModelMinuteRow) =>
    sql<number | null>`sum(case when ${sql.ref(column)} is null then 0 else frames_inferred end)`;
  return db
    .selectFrom('vision_model_minutes')
    .select((eb) => [
      'camera_id',
      'location_id',
      eb.fn.countAll<number>().as('minutes'),
      eb.fn.sum<number>('frames_read').as('frames_read'),
      eb.fn.sum<number>('frames_inferred').as('frames_inferred'),
      eb.fn.sum<number>('frames_skipped').as('frames_skipped'),
      eb.fn.sum<number>('frames_dropped').as('frames_dropped'),
      eb.fn.sum<number>('detections').as('detections'),
      eb.fn.sum<number | null>('camera_fps').as('camera_fps_sum'),
      eb.fn.count<number>('camera_fps').as('camera_fps_minutes'),
      eb.fn.sum<number | null>('detection_fps').as('detection_fps_sum'),
      eb.fn.count<number>('detection_fps').as('detection_fps_minutes'),
      weighted('inference_p50').as('inference_p50'),
      weight('inference_p50').as('inference_p50_weight'),
      weighted('inference_p99').as('inference_p99'),
      weight('inference_p99').as('inference_p99_weight'),
      weighted('inference_mean').as('inference_mean'),
      weight('inference_mean').as('inference_mean_weight'),
      weighted('capture_p50').as('capture_p50'),
      weight('capture_p50').as('capture_p50_weight'),
      weighted('capture_p95').as('capture_p95'),
      weight('capture_p95').as('capture_p95_weight'),
      weighted('capture_p99').as('capture_p99'),
      weight('capture_p99').as('capture_p99_weight'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('model_id', '=', modelId)
    .where('minute', '>=', window.from)
    .where('minute', '<', window.to)
    .$if(window.locationId !== undefined, (q) => q.where('location_id', '=', window.locationId!))
    .groupBy(['camera_id', 'location_id'])
    .orderBy('camera_id')
    .execute();
};

export type ModelTotalsRow = Awaited<ReturnType<typeof modelTotals>>[number];

export const desired = (db: Db, tenantId: string, section: SettingsSection, target: string) =>
  db
    .selectFrom('vision_desired_settings')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('section', '=', section)
    .where('target', '=', target)
    .executeTakeFirst();

export const putDesired = (db: Db, row: VisionDesiredSettingsRow) =>
  db
    .insertInto('vision_desired_settings')
    .values(row)
    .onConflict((c) =>
      c
        .columns(['tenant_id', 'section', 'target'])
        .doUpdateSet(
          fromExcluded<'vision_desired_settings'>([
            'location_id',
            'settings',
            'command_id',
            'device_id',
            'requested_by',
            'requested_at',
            'confirmed',
            'confirmed_at',
          ]) as never,
        ),
    )
    .execute();

/** Drops the awaited settings, only while they are the ones that command carried. */
export const dropDesired = (
  db: Db,
  tenantId: string,
  section: SettingsSection,
  target: string,
  commandId: string,
) =>
  db
    .deleteFrom('vision_desired_settings')
    .where('tenant_id', '=', tenantId)
    .where('section', '=', section)
    .where('target', '=', target)
    .where('command_id', '=', commandId)
    .execute();
