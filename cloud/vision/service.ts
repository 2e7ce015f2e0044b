import type { Fields } from '../../shared/sync/registry.ts';
import type { Db } from '../db/index.ts';
import { requireCamera, scopeLocation, type Viewer, type VisionDeps } from './context.ts';
import {
  cameraRequired,
  driveThruNotFound,
  locationRequired,
  modelNotFound,
  occupancyNotFound,
  verificationNotFound,
} from './errors.ts';
import { modelMetrics } from './metrics.ts';
import { decodeCursor, encodeCursor, parsePeriod } from './period.ts';
import { createVisionSettings } from './settings.ts';
import * as queries from './store.ts';
import * as synced from './synced.ts';
import {
  type Camera,
  toCamera,
  toDetection,
  toDriveThruStatus,
  toOccupancy,
  toTrack,
  toVerification,
} from './views.ts';

interface Page {
  limit: number;
  cursor?: string | undefined;
}

/** Rows of one more than the page: the extra one says there is a next page. */
function paged<Row extends { id: string }, Item>(
  rows: Row[],
  limit: number,
  at: (row: Row) => string,
  view: (row: Row) => Item,
) {
  const last = rows.length > limit ? rows[limit - 1] : undefined;
  return {
    items: rows.slice(0, limit).map(view),
    nextCursor: last ? encodeCursor({ at: at(last), id: last.id }) : null,
  };
}

/**
 * The cloud's side of the stores' vision: what their camera pipelines synced (cameras, lanes,
 * occupancy, detections, tracks, verifications, model minutes), read per tenant and store, and
 * the changes the cloud asks of a store's appliance over the fleet link.
 */
export function createVisionService(deps: VisionDeps) {
  const db = deps.store.db;
  const settings = createVisionSettings(deps);
  const now = () => deps.clock.now();

  /** Applies rows of a synced table in the push's transaction; rows that do not parse are dropped. */
  const recorder =
    <Row>(
      parse: (from: synced.SyncedFrom, fields: Fields) => Row | undefined,
      write: (trx: Db, rows: Row[]) => Promise<unknown>,
    ) =>
    async (trx: Db, tenantId: string, locationId: string, fields: Fields[]) => {
      const from = { tenantId, locationId, at: now().toISOString() };
      const rows = fields.map((f) => parse(from, f)).filter((row): row is Row => row !== undefined);
      if (rows.length < fields.length)
        deps.log.warn(
          { tenantId, locationId, dropped: fields.length - rows.length },
          'synced vision rows dropped',
        );
      if (rows.length > 0) await write(trx, rows);
    };
  const each =
    <Row>(write: (trx: Db, row: Row) => Promise<unknown>) =>
    async (trx: Db, rows: Row[]) => {
      for (const row of rows) await write(trx, row);
    };

  async function lane(
    viewer: Viewer,
    query: { location_id?: string | undefined; camera_id?: string | undefined },
  ) {
    const locationId = scopeLocation(viewer, query.location_id);
    // Two are enough to know the question is ambiguous.
    const found = await queries.lanes(db, viewer.tenantId, { locationId, cameraId: query.camera_id }, 2);
    if (found.length === 0) throw driveThruNotFound();
    if (found.length > 1 && locationId === undefined) throw locationRequired();
    if (found.length > 1) throw cameraRequired();
    return found[0]!;
  }

  return {
    ...settings,

    recordCameras: recorder(synced.cameraRow, async (trx, rows) => {
      await each(queries.upsertCamera)(trx, rows);
      await settings.settleCameras(trx, rows);
    }),
    recordDetections: recorder(synced.detectionRow, queries.insertDetections),
    recordTracks: recorder(synced.trackRow, queries.insertTracks),
    recordVerifications: recorder(synced.verificationRow, queries.insertVerifications),
    recordModelMinutes: recorder(synced.minuteRow, queries.insertMinutes),
    recordLanes: recorder(synced.laneRow, each(queries.upsertLane)),
    recordOccupancy: recorder(synced.occupancyRow, each(queries.upsertOccupancy)),

    async listCameras(viewer: Viewer, query: { location_id?: string | undefined }) {
      const locationId = scopeLocation(viewer, query.location_id);
      return (await queries.cameras(db, viewer.tenantId, { locationId })).map(toCamera);
    },

    /** The cameras of these stores (the caller vouches they are the tenant's), by location id. */
    async camerasAt(tenantId: string, locationIds: readonly string[]) {
      const byStore = new Map<string, Camera[]>(locationIds.map((id) => [id, []]));
      for (const row of await queries.camerasAt(db, tenantId, locationIds))
        byStore.get(row.location_id)?.push(toCamera(row));
      return byStore;
    },

    getCamera: async (viewer: Viewer, cameraId: string) =>
      toCamera(await requireCamera(deps, viewer, cameraId)),

    /** One lane: the only one in scope, or the one the query narrows to. */
    async driveThruStatus(
      viewer: Viewer,
      query: { location_id?: string | undefined; camera_id?: string | undefined },
    ) {
      const row = await lane(viewer, query);
      const camera = await queries.camera(db, viewer.tenantId, row.camera_id);
      return toDriveThruStatus(row, camera, now());
    },

    async latestVerification(viewer: Viewer, body: { order_id: string; camera_id: string }) {
      await requireCamera(deps, viewer, body.camera_id);
      const row = await queries.latestVerification(db, viewer.tenantId, body.order_id, body.camera_id);
      if (!row) throw verificationNotFound();
      return toVerification(row);
    },

    async occupancy(viewer: Viewer, locationId: string) {
      scopeLocation(viewer, locationId);
      const row = await queries.occupancy(db, viewer.tenantId, locationId);
      if (!row) throw occupancyNotFound();
      return toOccupancy(row);
    },

    async detections(viewer: Viewer, cameraId: string, page: Page) {
      await requireCamera(deps, viewer, cameraId);
      const before = decodeCursor(page.cursor);
      const rows = await queries.detections(db, viewer.tenantId, cameraId, { limit: page.limit + 1, before });
      return paged(rows, page.limit, (row) => row.detected_at, toDetection);
    },

    async tracks(
      viewer: Viewer,
      query: Page & { period: string; location_id?: string | undefined; camera_id?: string | undefined },
    ) {
      const since = new Date(now().getTime() - parsePeriod(query.period)).toISOString();
      const locationId = scopeLocation(viewer, query.location_id);
      if (query.camera_id !== undefined) await requireCamera(deps, viewer, query.camera_id);
      const before = decodeCursor(query.cursor);
      const filter = { since, locationId, cameraId: query.camera_id };
      const rows = await queries.tracks(db, viewer.tenantId, filter, { limit: query.limit + 1, before });
      return paged(rows, query.limit, (row) => row.left_at, toTrack);
    },

    async modelMetrics(
      viewer: Viewer,
      modelId: string,
      query: { period: string; location_id?: string | undefined },
    ) {
      const to = now();
      const from = new Date(to.getTime() - parsePeriod(query.period));
      const locationId = scopeLocation(viewer, query.location_id);
      if (!(await queries.modelSeen(db, viewer.tenantId, modelId))) throw modelNotFound();
      const window = { from: from.toISOString(), to: to.toISOString() };
      const rows = await queries.modelTotals(db, viewer.tenantId, modelId, { ...window, locationId });
      return modelMetrics(modelId, { period: query.period, ...window }, rows);
    },
  };
}

export type VisionService = ReturnType<typeof createVisionService>;
