/** `awaiting_file` from registration until its bytes are uploaded and checked; `ready` after. */
export const VERSION_STATES = ['awaiting_file', 'ready'] as const;
export type VersionState = (typeof VERSION_STATES)[number];

export interface VisionModelRow {
  tenant_id: string;
  /** The model's name, as its manifest and the appliance call it (`vehicles`). */
  model_id: string;
  /** The version a sync installs when it names none; null until one is marked. */
  deploy_version: string | null;
  created_at: string;
  updated_at: string;
}

export interface VisionModelVersionRow {
  tenant_id: string;
  model_id: string;
  version: string;
  /** The manifest as registered (JSON object), extra fields kept. */
  manifest: string;
  /** Lower-case hex SHA-256 of the .onnx, from the manifest: the upload must match it. */
  sha256: string;
  state: VersionState;
  /** The upload whose chunks hold the bytes; null until one succeeded. */
  file_id: string | null;
  size: number | null;
  chunk_size: number | null;
  created_at: string;
  uploaded_at: string | null;
}

export interface VisionModelChunkRow {
  file_id: string;
  seq: number;
  tenant_id: string;
  model_id: string;
  version: string;
  bytes: Uint8Array;
  created_at: string;
}

export interface VisionModelTables {
  vision_models: VisionModelRow;
  vision_model_versions: VisionModelVersionRow;
  vision_model_chunks: VisionModelChunkRow;
}
