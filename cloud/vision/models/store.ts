/** The vision model tables. Every query takes the tenant first. */
import type { Db } from '../../db/index.ts';
import type { VisionModelChunkRow, VisionModelRow, VisionModelVersionRow } from './tables.ts';

export const models = (db: Db, tenantId: string) =>
  db.selectFrom('vision_models').selectAll().where('tenant_id', '=', tenantId).orderBy('model_id').execute();

export const model = (db: Db, tenantId: string, modelId: string) =>
  db
    .selectFrom('vision_models')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('model_id', '=', modelId)
    .executeTakeFirst();

/** Creates the model on its first version; a model that exists is left as it is. */
export const ensureModel = (db: Db, row: VisionModelRow) =>
  db
    .insertInto('vision_models')
    .values(row)
    .onConflict((conflict) => conflict.columns(['tenant_id', 'model_id']).doNothing())
    .execute();

export const setDeployVersion = (db: Db, tenantId: string, modelId: string, version: string, at: string) =>
  db
    .updateTable('vision_models')
    .set({ deploy_version: version, updated_at: at })
    .where('tenant_id', '=', tenantId)
    .where('model_id', '=', modelId)
    .execute();

/** Every version of the tenant's models (or of one), oldest first. */
export const versions = (db: Db, tenantId: string, modelId?: string) =>
  db
    .selectFrom('vision_model_versions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(modelId !== undefined, (q) => q.where('model_id', '=', modelId!))
    .orderBy('model_id')
    .orderBy('created_at')
    .orderBy('version')
    .execute();

export const version = (db: Db, tenantId: string, modelId: string, name: string) =>
  db
    .selectFrom('vision_model_versions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('model_id', '=', modelId)
    .where('version', '=', name)
    .executeTakeFirst();

export const insertVersion = (db: Db, row: VisionModelVersionRow) =>
  db.insertInto('vision_model_versions').values(row).execute();

/**
 * Makes a checked upload the file of a version still awaiting one; false when another upload got
 * there first (a version's file never changes once set, so a download in flight never breaks).
 */
export async function attachFile(
  db: Db,
  tenantId: string,
  modelId: string,
  name: string,
  file: { file_id: string; size: number; chunk_size: number; uploaded_at: string },
) {
  const result = await db
    .updateTable('vision_model_versions')
    .set({ ...file, state: 'ready' })
    .where('tenant_id', '=', tenantId)
    .where('model_id', '=', modelId)
    .where('version', '=', name)
    .where('state', '=', 'awaiting_file')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const insertChunk = (db: Db, row: VisionModelChunkRow) =>
  db.insertInto('vision_model_chunks').values(row).execute();

/** One piece of a file; the tenant is part of the key, so another tenant's file id reads nothing. */
export const chunk = (db: Db, tenantId: string, fileId: string, seq: number) =>
  db
    .selectFrom('vision_model_chunks')
    .select('bytes')
    .where('tenant_id', '=', tenantId)
    .where('file_id', '=', fileId)
    .where('seq', '=', seq)
    .executeTakeFirst();

export const deleteFile = (db: Db, tenantId: string, fileId: string) =>
  db
    .deleteFrom('vision_model_chunks')
    .where('tenant_id', '=', tenantId)
    .where('file_id', '=', fileId)
    .execute();

/**
 * Pieces of a version's uploads that never became its file and were begun before `before`: an
 * upload cut off by a crash of its gateway. Uploads still running are younger and stay.
 */
export const deleteAbandonedUploads = (
  db: Db,
  tenantId: string,
  modelId: string,
  name: string,
  keep: string | null,
  before: string,
) =>
  db
    .deleteFrom('vision_model_chunks')
    .where('tenant_id', '=', tenantId)
    .where('model_id', '=', modelId)
    .where('version', '=', name)
    .where('created_at', '<', before)
    .$if(keep !== null, (q) => q.where('file_id', '<>', keep!))
    .execute();
