/**
 * Resumable uploads, for archives of hundreds of megabytes over a store's bad link. An upload is
 * made with its size; chunks are appended at the offset the server holds (a chunk that names
 * another offset is refused with the server's, so a client that lost an answer asks and goes on);
 * a chunk cut off midway keeps what arrived. One request writes at a time (a claim on the row that
 * runs out, so a writer that died does not block the upload). The chunk that reaches the size
 * makes the release, or fails the upload for good when the archive is no release.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { AppError } from '../../shared/http/errors.ts';
import { createInspector } from './archive.ts';
import type { Catalog } from './catalog.ts';
import { nowIso, type ReleaseContext } from './context.ts';
import {
  chunkPastEnd,
  offsetMismatch,
  tooLarge,
  uploadBusy,
  uploadEnded,
  uploadExpired,
  uploadNotFound,
} from './errors.ts';
import { writeBody } from './files.ts';
import * as queries from './store.ts';
import type { ReleaseUploadRow } from './tables.ts';
import { type Release, toUpload, type Upload } from './views.ts';

const CLAIM_MS = 60_000;
const RENEW_MS = 20_000;
const SWEEP_BATCH = 100;

export interface NewUpload {
  size: number;
  sha256?: string | undefined;
  notes?: string | undefined;
}

export type AppendOutcome =
  | { upload: Upload; release?: undefined }
  | { release: Release; upload?: undefined };

export const interrupted = (received: number, cause: unknown) =>
  new AppError(400, 'UPLOAD_INTERRUPTED', `The chunk was cut off; the upload is at byte ${received}`, {
    headers: { 'upload-offset': String(received) },
    cause,
  });

export function createUploads(context: ReleaseContext, catalog: Catalog) {
  const db = context.store.db;
  const { files } = context;
  const later = (ms: number) => new Date(context.clock.now().getTime() + ms).toISOString();

  async function requireUpload(tenantId: string, id: string) {
    const row = await queries.upload(db, tenantId, id);
    if (!row) throw uploadNotFound();
    return row;
  }

  /** Why `row` takes no chunk at `offset` now, as the error to answer. */
  function refusal(row: ReleaseUploadRow, offset: number, now: string) {
    if (row.state === 'expired' || (row.state === 'open' && row.expires_at <= now)) return uploadExpired();
    if (row.state !== 'open') return uploadEnded(row.state);
    if (row.received !== offset) return offsetMismatch(row.received);
    return undefined;
  }

  /** Keeps the claim alive while a long chunk arrives or the archive is checked. */
  function holdClaim(tenantId: string, id: string, writer: string) {
    const timer = setInterval(() => {
      queries
        .updateClaimed(db, tenantId, id, writer, { writer_until: later(CLAIM_MS) })
        .catch((error: unknown) =>
          context.log.warn({ err: error, upload_id: id }, 'upload claim not renewed'),
        );
    }, RENEW_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** The whole archive is here: it becomes a release, or the upload fails with the reason. */
  async function complete(row: ReleaseUploadRow, writer: string): Promise<Release> {
    const path = files.partOf(row.id);
    try {
      await truncate(path, row.size);
      const inspector = createInspector();
      for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }))
        await inspector.write(chunk as Buffer);
      const inspection = await inspector.finish();
      const input = { path, inspection, sha256: row.sha256, notes: row.notes, createdBy: row.created_by };
      return await catalog.publish(row.tenant_id, input, async (trx, releaseId) => {
        const patch = { state: 'completed' as const, release_id: releaseId, updated_at: nowIso(context) };
        if (!(await queries.updateClaimed(trx, row.tenant_id, row.id, writer, patch))) throw uploadBusy();
      });
    } catch (error) {
      // A refusal is for good (the same bytes would be refused again); anything else may pass on a retry.
      if (!(error instanceof AppError) || error.code === 'UPLOAD_BUSY') throw error;
      const failure = JSON.stringify({ code: error.code, message: error.message });
      await queries.updateClaimed(db, row.tenant_id, row.id, writer, {
        state: 'failed',
        error: failure,
        updated_at: nowIso(context),
      });
      await files.remove(path);
      throw error;
    }
  }

  /** Writes one chunk under the claim `writer` holds; completes the upload when it is whole. */
  async function write(
    row: ReleaseUploadRow,
    writer: string,
    body: AsyncIterable<Uint8Array>,
  ): Promise<AppendOutcome> {
    const file = await files.openPart(row.id);
    const result = await writeBody(body, file, {
      position: row.received,
      limit: row.size - row.received,
    }).finally(() => file.close());
    if (result.overflow) throw chunkPastEnd(row.size);
    const received = row.received + result.written;
    const at = nowIso(context);
    const moved = await queries.updateClaimed(db, row.tenant_id, row.id, writer, {
      received,
      updated_at: at,
    });
    if (!moved) throw uploadBusy();
    if (result.error) throw interrupted(received, result.error);
    const now = { ...row, received, updated_at: at };
    if (received < row.size) return { upload: toUpload(now, at) };
    return { release: await complete(now, writer) };
  }

  return {
    async create(tenantId: string, createdBy: string | null, input: NewUpload): Promise<Upload> {
      const { maxBytes, uploadTtlSeconds } = context.options;
      if (input.size > maxBytes) throw tooLarge(maxBytes);
      const at = nowIso(context);
      const row: ReleaseUploadRow = {
        id: context.newId(),
        tenant_id: tenantId,
        size: input.size,
        sha256: input.sha256?.toLowerCase() ?? null,
        notes: input.notes ?? null,
        received: 0,
        state: 'open',
        release_id: null,
        error: null,
        writer: null,
        writer_until: null,
        created_by: createdBy,
        created_at: at,
        updated_at: at,
        expires_at: later(uploadTtlSeconds * 1000),
      };
      await queries.insertUpload(db, row);
      return toUpload(row, at);
    },

    status: async (tenantId: string, id: string) =>
      toUpload(await requireUpload(tenantId, id), nowIso(context)),

    /**
     * Appends a chunk that starts at `offset`. An empty chunk at the upload's size completes an
     * upload whose last answer was lost before it was checked.
     */
    async append(
      tenantId: string,
      id: string,
      offset: number,
      body: AsyncIterable<Uint8Array>,
      declaredLength: number | undefined,
    ): Promise<AppendOutcome> {
      const row = await requireUpload(tenantId, id);
      const now = nowIso(context);
      const refused = refusal(row, offset, now);
      if (refused) throw refused;
      if (declaredLength !== undefined && offset + declaredLength > row.size) throw chunkPastEnd(row.size);
      const writer = randomUUID();
      const claim = { offset, writer, until: later(CLAIM_MS), now };
      if (!(await queries.claimUpload(db, tenantId, id, claim)))
        throw refusal(await requireUpload(tenantId, id), offset, now) ?? uploadBusy();
      const release = holdClaim(tenantId, id, writer);
      try {
        return await write(row, writer, body);
      } finally {
        release();
        // Left held, the claim would only run out a minute later: not worth hiding the answer for.
        await queries
          .updateClaimed(db, tenantId, id, writer, { writer: null, writer_until: null })
          .catch((error: unknown) =>
            context.log.warn({ err: error, upload_id: id }, 'upload claim not released'),
          );
      }
    },

    /** Open uploads whose time ran out become expired, and their bytes are removed. */
    async sweep() {
      const now = nowIso(context);
      const due = await queries.expiredUploads(db, now, SWEEP_BATCH);
      for (const { tenant_id, id } of due)
        if (await queries.expireUpload(db, tenant_id, id, now)) await files.remove(files.partOf(id));
      return due.length;
    },
  };
}

export type Uploads = ReturnType<typeof createUploads>;
