/**
 * Sync health of the stores: when each appliance was last heard from, pushed and pulled, the queue
 * it last reported, how far it is behind the cloud's feed, and the day's changes and conflicts.
 * Read for many stores at once with one query per table, so a fleet's page costs what one store's does.
 */
import type { Clock } from '../../shared/clock.ts';
import { NotFoundError } from '../../shared/http/errors.ts';
import type { Db } from '../db/index.ts';
import type { SyncStore } from './store.ts';
import type { SyncLocationRow } from './tables.ts';

const CONFLICT_WINDOW_MS = 24 * 3600_000;

export type SyncStatus = ReturnType<typeof toStatus>;

function toStatus(
  locationId: string,
  location: SyncLocationRow | undefined,
  counts: { changes: number; conflicts: number },
  at: number,
  onlineWindowMs: number,
) {
  const seenAt = location?.last_seen_at ? Date.parse(location.last_seen_at) : undefined;
  const oldest = location?.oldest_pending_at ? Date.parse(location.oldest_pending_at) : undefined;
  const feedSeq = Number(location?.last_seq ?? 0);
  const pulledCursor = Number(location?.pulled_cursor ?? 0);
  return {
    location_id: locationId,
    online: seenAt !== undefined && at - seenAt <= onlineWindowMs,
    last_seen_at: location?.last_seen_at ?? null,
    last_push_at: location?.last_push_at ?? null,
    last_pull_at: location?.last_pull_at ?? null,
    queue_depth: Number(location?.queue_depth ?? 0),
    oldest_pending_at: location?.oldest_pending_at ?? null,
    lag_seconds: oldest === undefined ? 0 : Math.max(0, Math.round((at - oldest) / 1000)),
    feed_seq: feedSeq,
    pulled_cursor: pulledCursor,
    pending_down: Math.max(0, feedSeq - pulledCursor),
    changes_24h: counts.changes,
    conflicts_24h: counts.conflicts,
    conflict_rate: counts.changes === 0 ? 0 : Number((counts.conflicts / counts.changes).toFixed(6)),
    trigger_pending: location?.trigger_requested_at != null,
  };
}

export function createSyncStatus(deps: {
  queries: SyncStore;
  db: Db;
  clock: Clock;
  onlineWindowSeconds: number;
  locationExists(tenantId: string, locationId: string): Promise<boolean>;
}) {
  const { queries, db, clock } = deps;
  const onlineWindowMs = deps.onlineWindowSeconds * 1000;

  /** Each of these stores' status, by location id; the caller vouches that they are the tenant's. */
  async function statuses(tenantId: string, locationIds: readonly string[]) {
    const at = clock.now().getTime();
    const since = new Date(at - CONFLICT_WINDOW_MS).toISOString();
    const [locations, counts] = await Promise.all([
      queries.locationsIn(db, tenantId, locationIds),
      queries.countsSince(db, tenantId, locationIds, since),
    ]);
    const byId = new Map(locations.map((row) => [row.location_id, row]));
    return new Map(
      locationIds.map((id) => {
        const count = { changes: counts.changes.get(id) ?? 0, conflicts: counts.conflicts.get(id) ?? 0 };
        return [id, toStatus(id, byId.get(id), count, at, onlineWindowMs)];
      }),
    );
  }

  return {
    statuses,

    async status(tenantId: string, locationId: string): Promise<SyncStatus> {
      if (!(await deps.locationExists(tenantId, locationId)))
        throw new NotFoundError('Location', 'LOCATION_NOT_FOUND');
      return (await statuses(tenantId, [locationId])).get(locationId)!;
    },

    /** The tenant's stores whose appliance is online now (heard from within the online window). */
    async onlineLocations(tenantId: string) {
      const since = new Date(clock.now().getTime() - onlineWindowMs).toISOString();
      return (await queries.seenSince(db, tenantId, since)).map((row) => row.location_id);
    },
  };
}
