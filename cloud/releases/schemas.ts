import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { RELEASE_STATES, UPDATE_KEY_STATES, UPLOAD_STATES } from './tables.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
// One JSON-schema enum keeps the names' type for handlers and lists the values in the docs.
const Literals = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
const Sha256 = Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'SHA-256, hexadecimal' });
const Notes = Type.String({ minLength: 1, maxLength: 2000 });
const Bytes = (description: string) =>
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });

export const ReleaseParamsSchema = Type.Object({ release_id: Uuid });
export const UploadParamsSchema = Type.Object({ upload_id: Uuid });

export const ReleaseListQuerySchema = Type.Object(
  {
    state: Type.Optional(Literals(RELEASE_STATES)),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);

export const OneShotQuerySchema = Type.Object(
  {
    notes: Type.Optional(Notes),
    sha256: Type.Optional({ ...Sha256, description: 'the archive’s SHA-256, checked (422 SHA256_MISMATCH)' }),
  },
  { additionalProperties: false },
);

export const NewUploadSchema = Type.Object(
  {
    size: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'the archive’s length in bytes (413 RELEASE_TOO_LARGE past the limit)',
    }),
    sha256: Type.Optional({
      ...Sha256,
      description: 'checked once the upload is whole (422 SHA256_MISMATCH)',
    }),
    notes: Type.Optional(Notes),
  },
  { additionalProperties: false },
);
export type NewUploadBody = Static<typeof NewUploadSchema>;

export const ChunkHeadersSchema = Type.Object({
  'upload-offset': Type.String({
    pattern: '^(0|[1-9][0-9]{0,15})$',
    description: 'where the chunk starts: the upload’s offset',
  }),
});

export const ArtifactQuerySchema = Type.Object(
  {
    token: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
        maxLength: 2048,
        description: 'the download token of a signed manifest’s URL (instead of a bearer token)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ReleaseSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  version: Type.String({ description: 'from the archive’s release.json' }),
  size: Bytes('the archive’s length in bytes'),
  sha256: Type.String(),
  state: Literals(RELEASE_STATES),
  notes: Nullable(Type.String()),
  release_meta: Type.Record(Type.String(), Type.Unknown(), {
    description: 'the archive’s release.json as it is',
  }),
  created_by: Nullable({ ...Uuid, description: 'the user who uploaded it' }),
  created_at: Timestamp,
  retired_at: Nullable(Timestamp),
});

export const UploadSchema = Type.Object({
  id: Uuid,
  offset: Bytes('bytes received in order from the start: where the next chunk begins'),
  size: Bytes('the archive’s length'),
  state: Literals(UPLOAD_STATES),
  sha256: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  release_id: Nullable({ ...Uuid, description: 'the release it made, once completed' }),
  error: Nullable(
    Type.Object(
      { code: Type.String(), message: Type.String() },
      { description: 'why the archive was refused, once failed' },
    ),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
  expires_at: { ...Timestamp, description: 'an upload not completed by then is removed' },
});

export const UpdateKeySchema = Type.Object({
  key_id: Type.String({ description: 'what a signed manifest names in `key_id`' }),
  public_key: Type.String({ description: 'Ed25519, SPKI PEM' }),
  state: Literals(UPDATE_KEY_STATES),
  active: Type.Boolean({ description: 'the key that signs now; retired keys stay trusted' }),
  endorsed_by: Nullable(Type.String({ description: 'the key that endorsed this one (the one before it)' })),
  created_at: Timestamp,
  retired_at: Nullable(Timestamp),
});
