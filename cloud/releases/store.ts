/**
 * Releases, their uploads and the update keys. Every query of tenant data takes the tenant first;
 * the update keys are the cloud's own, and the expiry sweep reads every tenant's expired uploads
 * (then expires each within its tenant).
 */
import type { Db } from '../db/index.ts';
import type { ReleaseRow, ReleaseState, ReleaseTables, ReleaseUploadRow, UpdateKeyRow } from './tables.ts';

type Plain<T> = { [K in keyof T]: T[K] };
type Tables = { [T in keyof ReleaseTables]: Plain<ReleaseTables[T]> };

// The tables are this module's own: the store sees them without the cloud's schema naming them.
const tables = (db: Db) => db.withTables<Tables>();

export const activeKey = (db: Db) =>
  tables(db).selectFrom('update_keys').selectAll().where('state', '=', 'active').executeTakeFirst();

export const updateKeys = (db: Db): Promise<UpdateKeyRow[]> =>
  tables(db).selectFrom('update_keys').selectAll().orderBy('created_at').orderBy('key_id').execute();

export const updateKey = (db: Db, keyId: string) =>
  tables(db).selectFrom('update_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();

export const insertKey = (db: Db, row: UpdateKeyRow) =>
  tables(db).insertInto('update_keys').values(row).execute();

/** Whether this call retired the key: false when another rotation got to it first. */
export async function retireKey(db: Db, keyId: string, at: string) {
  const result = await tables(db)
    .updateTable('update_keys')
    .set({ state: 'retired', retired_at: at })
    .where('key_id', '=', keyId)
    .where('state', '=', 'active')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export const insertRelease = (db: Db, row: ReleaseRow) =>
  tables(db).insertInto('releases').values(row).execute();

export const release = (db: Db, tenantId: string, id: string) =>
  tables(db)
    .selectFrom('releases')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const releaseByVersion = (db: Db, tenantId: string, version: string) =>
  tables(db)
    .selectFrom('releases')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('version', '=', version)
    .executeTakeFirst();

/** Newest first (ids are UUIDv7); `before` is the last id of the previous page. */
export function releases(
  db: Db,
  tenantId: string,
  filter: { state?: ReleaseState | undefined },
  page: { limit: number; before?: string | undefined },
) {
  let query = tables(db).selectFrom('releases').selectAll().where('tenant_id', '=', tenantId);
  if (filter.state) query = query.where('state', '=', filter.state);
  if (page.before) query = query.where('id', '<', page.before);
  return query.orderBy('id', 'desc').limit(page.limit).execute();
}

export const retireRelease = (db: Db, tenantId: string, id: string, at: string) =>
  tables(db)
    .updateTable('releases')
    .set({ state: 'retired', retired_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('state', '=', 'available')
    .execute();

export const insertUpload = (db: Db, row: ReleaseUploadRow) =>
  tables(db).insertInto('release_uploads').values(row).execute();

export const upload = (db: Db, tenantId: string, id: string) =>
  tables(db)
    .selectFrom('release_uploads')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * Makes `writer` the upload's one writer, when the upload is open and at `offset`, and nobody else
 * holds it (or their claim ran out: a writer that died must not block the upload for good).
 */
export async function claimUpload(
  db: Db,
  tenantId: string,
  id: string,
  claim: { offset: number; writer: string; until: string; now: string },
) {
  const result = await tables(db)
    .updateTable('release_uploads')
    .set({ writer: claim.writer, writer_until: claim.until })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('state', '=', 'open')
    .where('received', '=', claim.offset)
    .where('expires_at', '>', claim.now)
    .where((eb) => eb.or([eb('writer', 'is', null), eb('writer_until', '<', claim.now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Changes the upload while `writer` still holds it; false when the claim was lost (it ran out and
 * another request took the upload over), so what this writer did must not count.
 */
export async function updateClaimed(
  db: Db,
  tenantId: string,
  id: string,
  writer: string,
  patch: Partial<Pick<ReleaseUploadRow, 'received' | 'state' | 'release_id' | 'error' | 'updated_at'>> & {
    writer_until?: string | null;
    writer?: null;
  },
) {
  const result = await tables(db)
    .updateTable('release_uploads')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('writer', '=', writer)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** For the sweep only: open uploads of every tenant whose time ran out and that nobody is writing. */
export const expiredUploads = (db: Db, now: string, limit: number) =>
  tables(db)
    .selectFrom('release_uploads')
    .select(['tenant_id', 'id'])
    .where('state', '=', 'open')
    .where('expires_at', '<=', now)
    .where((eb) => eb.or([eb('writer', 'is', null), eb('writer_until', '<', now)]))
    .orderBy('expires_at')
    .limit(limit)
    .execute();

export async function expireUpload(db: Db, tenantId: string, id: string, now: string) {
  const result = await tables(db)
    .updateTable('release_uploads')
    .set({ state: 'expired', writer: null, writer_until: null, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('state', '=', 'open')
    .where('expires_at', '<=', now)
    .where((eb) => eb.or([eb('writer', 'is', null), eb('writer_until', '<', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
