/** The cloud-wide update signing keys, and each tenant's releases and their resumable uploads. */
export const UPDATE_KEY_STATES = ['active', 'retired'] as const;
export type UpdateKeyState = (typeof UPDATE_KEY_STATES)[number];

export const RELEASE_STATES = ['available', 'retired'] as const;
export type ReleaseState = (typeof RELEASE_STATES)[number];

export const UPLOAD_STATES = ['open', 'completed', 'failed', 'expired'] as const;
export type UploadState = (typeof UPLOAD_STATES)[number];

export interface UpdateKeyRow {
  /** updateKeyId of the public key: what a manifest names in `key_id`. */
  key_id: string;
  /** SPKI PEM. */
  public_key: string;
  /** PKCS#8 PEM. */
  private_key: string;
  state: UpdateKeyState;
  /** JSON KeyEndorsement by the key that was active before this one; null for the first key. */
  endorsement: string | null;
  created_at: string;
  retired_at: string | null;
}

export interface ReleaseRow {
  id: string;
  tenant_id: string;
  version: string;
  size: number;
  sha256: string;
  /** The artifact's path under the releases directory. */
  storage_key: string;
  state: ReleaseState;
  notes: string | null;
  /** JSON: the archive's own release.json. */
  release_meta: string;
  created_by: string | null;
  created_at: string;
  retired_at: string | null;
}

export interface ReleaseUploadRow {
  id: string;
  tenant_id: string;
  size: number;
  /** The digest the client declared, checked at completion; null when none was. */
  sha256: string | null;
  notes: string | null;
  /** Bytes received in order from the start: the offset the next chunk must name. */
  received: number;
  state: UploadState;
  release_id: string | null;
  /** JSON {code, message} of the check that failed the upload. */
  error: string | null;
  /** The request writing a chunk now, and until when its claim holds unless renewed. */
  writer: string | null;
  writer_until: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
}

export interface ReleaseTables {
  update_keys: UpdateKeyRow;
  releases: ReleaseRow;
  release_uploads: ReleaseUploadRow;
}
