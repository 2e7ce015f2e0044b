import { type Static, Type } from '@sinclair/typebox';

/**
 * Names that become files (`<name>/<version>.onnx`): plain characters only, so a command can never
 * reach outside the store's folder. The cloud's model routes accept the same.
 */
export const MODEL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const MODEL_VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,49}$/;

/** One model of a `models_sync` command: where to get it, and what it must be. */
export const SyncModelSchema = Type.Object({
  name: Type.String({ pattern: MODEL_NAME.source }),
  version: Type.String({ pattern: MODEL_VERSION.source }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  size: Type.Integer({ minimum: 1 }),
  url: Type.String({ minLength: 1, maxLength: 2000 }),
  manifest: Type.Record(Type.String(), Type.Unknown()),
});
export type SyncModel = Static<typeof SyncModelSchema>;

/** The `models_sync` command's payload, as cloud/vision/models builds it. */
export const ModelsSyncPayloadSchema = Type.Object({
  models: Type.Array(SyncModelSchema, { minItems: 1, maxItems: 50 }),
});
export type ModelsSyncPayload = Static<typeof ModelsSyncPayloadSchema>;

export type ModelSyncStatus = 'installed' | 'unchanged' | 'failed';

export interface ModelSyncResult {
  name: string;
  version: string;
  status: ModelSyncStatus;
  reason?: string;
}

/** The command's result: one entry per model asked for, in its order. */
export interface ModelsSyncResult extends Record<string, unknown> {
  models: ModelSyncResult[];
}
