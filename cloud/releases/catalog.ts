/**
 * A tenant's releases: made from a checked archive (one-shot here, resumable in uploads.ts), listed,
 * retired, and their artifacts read by byte range.
 */
import { AppError } from '../../shared/http/errors.ts';
import type { Db } from '../db/index.ts';
import { createInspector, type Inspection } from './archive.ts';
import { nowIso, type ReleaseContext, requireRelease } from './context.ts';
import { digestMismatch, emptyUpload, incompleteUpload, releaseExists, tooLarge } from './errors.ts';
import { type WriteResult, writeBody } from './files.ts';
import * as queries from './store.ts';
import type { ReleaseRow, ReleaseState } from './tables.ts';
import { toRelease } from './views.ts';

export interface NewRelease {
  /** The checked archive's file; moved into place, or left where it is when no release is made. */
  path: string;
  inspection: Inspection;
  /** The digest the uploader declared, if any. */
  sha256?: string | null | undefined;
  notes?: string | null | undefined;
  createdBy: string | null;
}

/** Whatever the body did, a refusal the client can act on: a client gone mid-body is not a 5xx. */
function bodyOutcome(result: WriteResult, maxBytes: number, declaredLength: number | undefined) {
  if (result.overflow) throw tooLarge(maxBytes);
  if (result.error instanceof AppError) throw result.error;
  if (result.error) throw incompleteUpload(result.written, declaredLength ?? result.written + 1);
  if (result.written === 0) throw emptyUpload();
  if (declaredLength !== undefined && result.written !== declaredLength)
    throw incompleteUpload(result.written, declaredLength);
}

export function createCatalog(context: ReleaseContext) {
  const { files } = context;
  const db = context.store.db;

  /**
   * Makes the release, its row and its artifact together; `within` runs in the row's transaction
   * (an upload marked completed with it). Nothing of it is left when any step refuses.
   */
  async function publish(
    tenantId: string,
    input: NewRelease,
    within?: (trx: Db, releaseId: string) => Promise<void>,
  ) {
    const { inspection } = input;
    if (input.sha256 && input.sha256.toLowerCase() !== inspection.sha256)
      throw digestMismatch(inspection.sha256, input.sha256);
    if (await queries.releaseByVersion(db, tenantId, inspection.version))
      throw releaseExists(inspection.version);
    const id = context.newId();
    const row: ReleaseRow = {
      id,
      tenant_id: tenantId,
      version: inspection.version,
      size: inspection.size,
      sha256: inspection.sha256,
      storage_key: files.storageKey(tenantId, id),
      state: 'available',
      notes: input.notes ?? null,
      release_meta: JSON.stringify(inspection.meta),
      created_by: input.createdBy,
      created_at: nowIso(context),
      retired_at: null,
    };
    // The file first: a crash between the two leaves a file without a row, never a row without bytes.
    await files.publish(input.path, row.storage_key);
    try {
      await db.transaction().execute(async (trx) => {
        await queries.insertRelease(trx, row);
        await within?.(trx, id);
      });
    } catch (error) {
      await files.unpublish(row.storage_key, input.path);
      if (context.store.isUniqueViolation(error)) throw releaseExists(inspection.version);
      throw error;
    }
    return toRelease(row);
  }

  return {
    publish,

    /** A one-shot upload: the archive streams to a file of its own, checked as it arrives. */
    async upload(
      tenantId: string,
      createdBy: string | null,
      body: AsyncIterable<Uint8Array>,
      input: { declaredLength?: number | undefined; sha256?: string | undefined; notes?: string | undefined },
    ) {
      const { maxBytes } = context.options;
      if (input.declaredLength !== undefined && input.declaredLength > maxBytes) throw tooLarge(maxBytes);
      const { path, file } = await files.incoming();
      const inspector = createInspector();
      try {
        let result: WriteResult;
        try {
          result = await writeBody(body, file, { position: 0, limit: maxBytes, onChunk: inspector.write });
        } finally {
          await file.close();
        }
        bodyOutcome(result, maxBytes, input.declaredLength);
        const inspection = await inspector.finish();
        return await publish(tenantId, {
          path,
          inspection,
          sha256: input.sha256,
          notes: input.notes,
          createdBy,
        });
      } finally {
        await files.remove(path);
      }
    },

    async list(
      tenantId: string,
      filter: { state?: ReleaseState | undefined },
      page: { limit: number; cursor?: string | undefined },
    ) {
      const rows = await queries.releases(db, tenantId, filter, {
        limit: page.limit + 1,
        before: page.cursor,
      });
      const items = rows.slice(0, page.limit).map(toRelease);
      return { items, nextCursor: rows.length > page.limit ? (items.at(-1)?.id ?? null) : null };
    },

    get: async (tenantId: string, releaseId: string) =>
      toRelease(await requireRelease(context, tenantId, releaseId)),

    /** Retired releases start no new rollouts; retiring one again changes nothing. */
    async retire(tenantId: string, releaseId: string) {
      await requireRelease(context, tenantId, releaseId);
      await queries.retireRelease(db, tenantId, releaseId, nowIso(context));
      return toRelease(await requireRelease(context, tenantId, releaseId));
    },

    /** The release and a reader of any byte range of its artifact. */
    async artifact(tenantId: string, releaseId: string) {
      const row = await requireRelease(context, tenantId, releaseId);
      return {
        release: toRelease(row),
        read: (range: { start: number; end: number }) => files.read(row.storage_key, range),
      };
    },
  };
}

export type Catalog = ReturnType<typeof createCatalog>;
