import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { VERSION_STATES } from './tables.ts';

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Literals = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

/** A model's name: it names files on the appliance (`<name>/<version>.onnx`), so plain characters only. */
export const ModelIdSchema = Type.String({
  pattern: '^[a-z0-9][a-z0-9_-]{0,63}$',
  description: 'the model’s name, as its manifest says (`vehicles`): lower-case letters, digits, _ and -',
});
export const VersionNameSchema = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9._+-]{0,49}$',
  description: 'the manifest’s version (`1.2.0`): letters, digits, . _ + and -',
});
const Sha256Schema = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'lower-case hex SHA-256' });

/**
 * What the appliance needs to run a model (appliance/vision/detect/model.ts checks the same);
 * other fields (training notes, input format) are kept as given.
 */
export const ModelManifestSchema = Type.Object(
  {
    name: ModelIdSchema,
    version: VersionNameSchema,
    task: Type.Literal('detect'),
    layout: Type.Literal('yolov8'),
    input: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      size: Type.Integer({ minimum: 32, maximum: 2048, multipleOf: 32 }),
    }),
    output: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
    classes: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 1000 }),
    sha256: Sha256Schema,
  },
  { description: 'The model’s manifest (the JSON beside its .onnx)' },
);
export type ModelManifest = Static<typeof ModelManifestSchema>;

export const ModelParamsSchema = Type.Object({ model_id: ModelIdSchema });
export const VersionParamsSchema = Type.Object({ model_id: ModelIdSchema, version: VersionNameSchema });
export const EdgeParamsSchema = Type.Object({
  edge_id: Type.String({ minLength: 1, maxLength: 64, description: 'the appliance’s id' }),
});
export const SyncParamsSchema = Type.Object({
  edge_id: Type.String({ minLength: 1, maxLength: 64 }),
  command_id: Type.String({ minLength: 1, maxLength: 64 }),
});

export const VersionSchema = Type.Object({
  model_id: Type.String(),
  version: Type.String(),
  state: Literals(VERSION_STATES),
  sha256: Type.String(),
  size: Nullable(Type.Integer({ description: 'bytes of the .onnx, once uploaded' })),
  deployed: Type.Boolean({ description: 'the version a sync installs when it names none' }),
  created_at: Timestamp,
  uploaded_at: Nullable(Timestamp),
});
export const VersionDetailSchema = Type.Composite([
  VersionSchema,
  Type.Object({ manifest: Type.Record(Type.String(), Type.Unknown()) }),
]);

export const ModelSchema = Type.Object({
  model_id: Type.String(),
  deploy_version: Nullable(Type.String()),
  versions: Type.Array(VersionSchema),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const DeployBodySchema = Type.Object({ version: VersionNameSchema }, { additionalProperties: false });

export const SyncBodySchema = Type.Object(
  {
    models: Type.Optional(
      Type.Array(
        Type.Object(
          {
            model_id: ModelIdSchema,
            version: Type.Optional(VersionNameSchema),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 50,
          description: 'the models to install; a model without a version gets its deploy version',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type SyncBody = Static<typeof SyncBodySchema>;

/** One model as the `models_sync` command carries it to the appliance. */
export const SyncModelSchema = Type.Object({
  name: Type.String(),
  version: Type.String(),
  sha256: Type.String(),
  size: Type.Integer(),
  url: Type.String({ description: 'where the appliance downloads the .onnx with its credential' }),
  manifest: Type.Record(Type.String(), Type.Unknown()),
});
export type SyncModel = Static<typeof SyncModelSchema>;

export const SYNC_STATUSES = [
  'pending',
  'in_progress',
  'succeeded',
  'partially_failed',
  'failed',
  'expired',
  'cancelled',
] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

export const MODEL_RESULTS = ['pending', 'installed', 'unchanged', 'failed'] as const;

export const SyncAcceptedSchema = Type.Object({
  command_id: Type.String(),
  edge_id: Type.String(),
  status: Type.Literal('pending'),
  models: Type.Array(SyncModelSchema),
  expires_at: Timestamp,
});

export const SyncStateSchema = Type.Object({
  command_id: Type.String(),
  edge_id: Type.String(),
  status: Type.Unsafe<SyncStatus>({
    type: 'string',
    enum: [...SYNC_STATUSES],
    description:
      'pending until the appliance takes it; succeeded when every model is installed or unchanged, partially_failed or failed when some or all were refused (each rolled back)',
  }),
  progress: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'download progress, 0 to 1' })),
  models: Type.Array(
    Type.Object({
      model_id: Type.String(),
      version: Type.String(),
      status: Literals(MODEL_RESULTS),
      reason: Nullable(Type.String()),
    }),
  ),
  reason: Nullable(Type.String({ description: 'why the command as a whole failed' })),
  created_at: Timestamp,
  updated_at: Timestamp,
  expires_at: Timestamp,
});
export type SyncState = Static<typeof SyncStateSchema>;
