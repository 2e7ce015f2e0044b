/** Rows as the API shows them: parsed JSON, and never a storage path or a writer's claim. */
import type { ReleaseRow, ReleaseUploadRow, UploadState } from './tables.ts';

export const toRelease = (row: ReleaseRow) => ({
  id: row.id,
  tenant_id: row.tenant_id,
  version: row.version,
  size: row.size,
  sha256: row.sha256,
  state: row.state,
  notes: row.notes,
  release_meta: JSON.parse(row.release_meta) as Record<string, unknown>,
  created_by: row.created_by,
  created_at: row.created_at,
  retired_at: row.retired_at,
});
export type Release = ReturnType<typeof toRelease>;

/** An open upload whose time ran out shows as expired before the sweep gets to it. */
export const toUpload = (row: ReleaseUploadRow, now: string) => {
  const state: UploadState = row.state === 'open' && row.expires_at <= now ? 'expired' : row.state;
  return {
    id: row.id,
    offset: row.received,
    size: row.size,
    state,
    sha256: row.sha256,
    notes: row.notes,
    release_id: row.release_id,
    error: row.error ? (JSON.parse(row.error) as { code: string; message: string }) : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
    expires_at: row.expires_at,
  };
};
export type Upload = ReturnType<typeof toUpload>;
