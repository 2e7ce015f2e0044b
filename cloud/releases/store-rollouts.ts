/** Rollouts and their stores; every query takes the tenant first, except the engine's look across tenants. */
import type { Db, DialectName } from '../db/index.ts';
import type {
  RolloutRow,
  RolloutState,
  RolloutStoreRow,
  RolloutTables,
  StoreState,
} from './rollouts-tables.ts';
import { UNFINISHED } from './rollouts-tables.ts';

type Plain<T> = { [K in keyof T]: T[K] };
type Tables = { [T in keyof RolloutTables]: Plain<RolloutTables[T]> };

// The tables are this module's own: the store sees them without the cloud's schema naming them.
const tables = (db: Db) => db.withTables<Tables>();

// Both databases take a few thousand parameters in one statement; a store row has 19.
const INSERT_BATCH = 500;

export const insertRollout = (db: Db, row: RolloutRow) =>
  tables(db).insertInto('rollouts').values(row).execute();

export async function insertStores(db: Db, rows: readonly RolloutStoreRow[]) {
  for (let start = 0; start < rows.length; start += INSERT_BATCH)
    await tables(db)
      .insertInto('rollout_stores')
      .values(rows.slice(start, start + INSERT_BATCH))
      .execute();
}

export const rollout = (db: Db, tenantId: string, id: string) =>
  tables(db)
    .selectFrom('rollouts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * The rollout, locked for the caller's transaction on PostgreSQL so an admin's action and the
 * engine's step take turns; SQLite has one writer at a time already.
 */
export const lockedRollout = (db: Db, dialect: DialectName, tenantId: string, id: string) =>
  tables(db)
    .selectFrom('rollouts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .$if(dialect === 'pg', (q) => q.forUpdate())
    .executeTakeFirst();

export const rolloutByIdempotencyKey = (db: Db, tenantId: string, key: string) =>
  tables(db)
    .selectFrom('rollouts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();

/** Newest first; `before` is the last id of the previous page. */
export const rollouts = (
  db: Db,
  tenantId: string,
  filter: { state?: RolloutState | undefined; before?: string | undefined; limit: number },
) =>
  tables(db)
    .selectFrom('rollouts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(filter.state !== undefined, (q) => q.where('state', '=', filter.state!))
    .$if(filter.before !== undefined, (q) => q.where('id', '<', filter.before!))
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .execute();

export async function updateRollout(
  db: Db,
  tenantId: string,
  id: string,
  patch: Partial<Omit<RolloutRow, 'id' | 'tenant_id'>>,
) {
  await tables(db)
    .updateTable('rollouts')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export interface StoreFilter {
  states?: readonly StoreState[] | undefined;
  wave?: number | undefined;
  /** Stores of this wave and the ones before it. */
  upToWave?: number | undefined;
  locationIds?: readonly string[] | undefined;
  /** Position after which a page starts. */
  after?: number | undefined;
  limit?: number | undefined;
}

/** In rollout order (position). */
export const stores = (db: Db, tenantId: string, rolloutId: string, filter: StoreFilter = {}) =>
  tables(db)
    .selectFrom('rollout_stores')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('rollout_id', '=', rolloutId)
    .$if(filter.states !== undefined, (q) => q.where('state', 'in', [...filter.states!]))
    .$if(filter.wave !== undefined, (q) => q.where('wave', '=', filter.wave!))
    .$if(filter.upToWave !== undefined, (q) => q.where('wave', '<=', filter.upToWave!))
    .$if(filter.locationIds !== undefined, (q) => q.where('location_id', 'in', [...filter.locationIds!]))
    .$if(filter.after !== undefined, (q) => q.where('position', '>', filter.after!))
    .orderBy('position')
    .$if(filter.limit !== undefined, (q) => q.limit(filter.limit!))
    .execute();

/** How many stores of each rollout are in each wave and state. */
export async function storeCounts(db: Db, tenantId: string, rolloutIds: readonly string[]) {
  if (rolloutIds.length === 0) return [];
  const rows = await tables(db)
    .selectFrom('rollout_stores')
    .select(['rollout_id', 'wave', 'state'])
    .select((eb) => eb.fn.countAll().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('rollout_id', 'in', [...rolloutIds])
    .groupBy(['rollout_id', 'wave', 'state'])
    .execute();
  // PostgreSQL counts in bigint, which arrives as text.
  return rows.map((row) => ({ ...row, wave: Number(row.wave), count: Number(row.count) }));
}

/**
 * Moves one store on only from one of the `from` states, so the engine and an admin cannot both
 * move it; whether it moved.
 */
export async function updateStore(
  db: Db,
  tenantId: string,
  rolloutId: string,
  locationId: string,
  from: readonly StoreState[],
  patch: Partial<Omit<RolloutStoreRow, 'tenant_id' | 'rollout_id' | 'location_id'>>,
) {
  const result = await tables(db)
    .updateTable('rollout_stores')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('rollout_id', '=', rolloutId)
    .where('location_id', '=', locationId)
    .where('state', 'in', [...from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Of these stores, those already held by an unfinished rollout. */
export async function activeStores(db: Db, tenantId: string, locationIds: readonly string[]) {
  const held: string[] = [];
  for (let start = 0; start < locationIds.length; start += INSERT_BATCH) {
    const rows = await tables(db)
      .selectFrom('rollout_stores')
      .select('location_id')
      .where('tenant_id', '=', tenantId)
      .where('active', '=', 1)
      .where('location_id', 'in', locationIds.slice(start, start + INSERT_BATCH))
      .execute();
    held.push(...rows.map((row) => row.location_id));
  }
  return held;
}

/** The stores leave the rollout: they may join another one. */
export const letStoresGo = (db: Db, tenantId: string, rolloutId: string, locationIds?: readonly string[]) =>
  tables(db)
    .updateTable('rollout_stores')
    .set({ active: null })
    .where('tenant_id', '=', tenantId)
    .where('rollout_id', '=', rolloutId)
    .$if(locationIds !== undefined, (q) => q.where('location_id', 'in', [...locationIds!]))
    .execute();

/** The engine's look, across tenants: unfinished rollouts no replica holds, oldest first, after `after`. */
export const unleasedRollouts = (db: Db, now: string, after: string, limit: number) =>
  tables(db)
    .selectFrom('rollouts')
    .select(['id', 'tenant_id'])
    .where('state', 'in', [...UNFINISHED])
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();

/**
 * Takes the rollout for this replica until `until`, if nobody holds it. One conditional UPDATE:
 * on PostgreSQL a second replica's waits on the row lock and then finds the lease taken; SQLite
 * runs one writer at a time. A replica that dies lets the lease run out.
 */
export async function claimRollout(db: Db, tenantId: string, id: string, now: string, until: string) {
  const result = await tables(db)
    .updateTable('rollouts')
    .set({ lease_until: until })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('state', 'in', [...UNFINISHED])
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives the lease back, unless it ran out and another replica holds the rollout now. */
export const releaseRollout = (db: Db, tenantId: string, id: string, until: string) =>
  tables(db)
    .updateTable('rollouts')
    .set({ lease_until: null })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('lease_until', '=', until)
    .execute();
