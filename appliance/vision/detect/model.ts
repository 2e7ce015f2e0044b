/**
 * A detection model on disk: `<name>.onnx` and its manifest `<name>.json` (classes, input size,
 * layout, task, version, SHA-256 of the .onnx). Loading checks the manifest's shape and the
 * file's digest, so a corrupt or swapped file is refused with a clear error before any session
 * is made from it. A user's own YOLOv8/YOLO11 detection export drops in with a manifest of its own.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export const ModelManifestSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  version: Type.String({ minLength: 1, maxLength: 50 }),
  task: Type.Union([Type.Literal('detect')]),
  layout: Type.Union([Type.Literal('yolov8')]),
  input: Type.Object({
    name: Type.String({ minLength: 1 }),
    size: Type.Integer({ minimum: 32, maximum: 2048, multipleOf: 32 }),
  }),
  output: Type.Object({ name: Type.String({ minLength: 1 }) }),
  classes: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 1000 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
});
export type ModelManifest = Static<typeof ModelManifestSchema>;

export interface LoadedModel {
  manifest: ModelManifest;
  /** The .onnx bytes, checked against the manifest. */
  bytes: Uint8Array;
  file: string;
}

export class ModelError extends Error {
  override name = 'ModelError';
}

/** Reads `<base>.json` and `<base>.onnx` (`base` is the path without extension). */
export async function loadModel(base: string): Promise<LoadedModel> {
  const manifestFile = `${base}.json`;
  const file = `${base}.onnx`;
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(manifestFile, 'utf8'));
  } catch (error) {
    throw new ModelError(`model manifest ${manifestFile} cannot be read: ${(error as Error).message}`);
  }
  if (!Value.Check(ModelManifestSchema, raw)) {
    const first = [...Value.Errors(ModelManifestSchema, raw)][0];
    throw new ModelError(
      `model manifest ${manifestFile} is invalid: ${first?.path || '/'} ${first?.message}`,
    );
  }
  const manifest = raw;
  const bytes = await readFile(file).catch((error: Error) => {
    throw new ModelError(`model file ${file} cannot be read: ${error.message}`);
  });
  const digest = createHash('sha256').update(bytes).digest('hex');
  if (digest !== manifest.sha256)
    throw new ModelError(
      `model file ${file} does not match its manifest (sha256 ${digest.slice(0, 12)}…, expected ${manifest.sha256.slice(0, 12)}…): it is corrupt or not the model the manifest describes`,
    );
  return { manifest, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), file };
}
