import type { Logger } from 'pino';
import type { Clock } from '../../../shared/clock.ts';
import { InvalidRequestError } from '../../../shared/http/errors.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import type { Store } from '../../db/index.ts';
import type { EdgeFleet } from './edges.ts';
import * as errors from './errors.ts';
import { type ByteRange, CHUNK_BYTES, readFile, writeUpload } from './files.ts';
import type { ModelManifest, SyncBody, SyncModel } from './schemas.ts';
import * as queries from './store.ts';
import type { VisionModelVersionRow } from './tables.ts';
import { toModel, toSyncState, toVersionDetail } from './views.ts';

export interface VisionModelOptions {
  /** Largest .onnx accepted, in bytes. */
  maxBytes: number;
}

export const DEFAULT_VISION_MODEL_OPTIONS: VisionModelOptions = { maxBytes: 200 * 1024 * 1024 };

/** A sync waits this long for its appliance (a store may be offline over a weekend). */
const SYNC_TTL_SECONDS = 3 * 86_400;
/** Pieces of an upload begun this long ago that never became a file: its gateway died mid-upload. */
const ABANDONED_UPLOAD_MS = 86_400_000;

export interface VisionModelDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: VisionModelOptions;
  edges: EdgeFleet;
}

/** Builds the download URL the appliance is given for a version (the routes know where they live). */
export type FileUrl = (modelId: string, version: string) => string;

const sameManifest = (row: VisionModelVersionRow, manifest: ModelManifest) =>
  JSON.stringify(JSON.parse(row.manifest)) === JSON.stringify(manifest);

/**
 * A tenant's detection models in the cloud: versions registered with their manifests, their
 * bytes uploaded and checked against the manifest's digest, a deploy version per model, downloads
 * for admins and the tenant's appliances, and syncs that send an appliance the versions to install.
 */
export function createVisionModelService(deps: VisionModelDeps) {
  const db = deps.store.db;
  const now = () => deps.clock.now().toISOString();

  async function requireModel(tenantId: string, modelId: string) {
    const model = await queries.model(db, tenantId, modelId);
    if (!model) throw errors.modelNotFound();
    return model;
  }

  async function requireVersion(tenantId: string, modelId: string, version: string) {
    const model = await requireModel(tenantId, modelId);
    const row = await queries.version(db, tenantId, modelId, version);
    if (!row) throw errors.versionNotFound();
    return { model, row };
  }

  async function requireFile(tenantId: string, modelId: string, version: string) {
    const { row } = await requireVersion(tenantId, modelId, version);
    if (row.state !== 'ready' || !row.file_id || row.size === null || row.chunk_size === null)
      throw errors.fileMissing(modelId, version);
    return { ...row, file_id: row.file_id, size: row.size, chunk_size: row.chunk_size };
  }

  async function insertVersion(tenantId: string, manifest: ModelManifest) {
    const at = now();
    const row: VisionModelVersionRow = {
      tenant_id: tenantId,
      model_id: manifest.name,
      version: manifest.version,
      manifest: JSON.stringify(manifest),
      sha256: manifest.sha256,
      state: 'awaiting_file',
      file_id: null,
      size: null,
      chunk_size: null,
      created_at: at,
      uploaded_at: null,
    };
    await db.transaction().execute(async (trx) => {
      await queries.ensureModel(trx, {
        tenant_id: tenantId,
        model_id: manifest.name,
        deploy_version: null,
        created_at: at,
        updated_at: at,
      });
      await queries.insertVersion(trx, row);
    });
    return row;
  }

  /** The models to send: those named (a model without a version gets its deploy version), or every deployed one. */
  async function modelsToSync(tenantId: string, body: SyncBody, fileUrl: FileUrl): Promise<SyncModel[]> {
    const asked =
      body.models ??
      (await queries.models(db, tenantId))
        .filter((model) => model.deploy_version !== null)
        .map((model) => ({ model_id: model.model_id, version: model.deploy_version! }));
    if (asked.length === 0) throw errors.nothingToSync();
    const names = asked.map((entry) => entry.model_id);
    const repeated = names.find((name, i) => names.indexOf(name) !== i);
    if (repeated)
      throw new InvalidRequestError('A model may be named once per sync', [
        { field: 'body.models', message: `names ${repeated} twice` },
      ]);
    const out: SyncModel[] = [];
    for (const entry of asked) {
      const model = await requireModel(tenantId, entry.model_id);
      const version = entry.version ?? model.deploy_version;
      if (!version) throw errors.noDeployVersion(entry.model_id);
      const file = await requireFile(tenantId, entry.model_id, version);
      out.push({
        name: file.model_id,
        version: file.version,
        sha256: file.sha256,
        size: file.size,
        url: fileUrl(file.model_id, file.version),
        manifest: JSON.parse(file.manifest) as Record<string, unknown>,
      });
    }
    return out;
  }

  async function getModel(tenantId: string, modelId: string) {
    const model = await requireModel(tenantId, modelId);
    return toModel(model, await queries.versions(db, tenantId, modelId));
  }

  async function getVersion(tenantId: string, modelId: string, version: string) {
    const { model, row } = await requireVersion(tenantId, modelId, version);
    return toVersionDetail(row, model.deploy_version);
  }

  return {
    getModel,
    getVersion,

    async listModels(tenantId: string) {
      const [models, versions] = await Promise.all([
        queries.models(db, tenantId),
        queries.versions(db, tenantId),
      ]);
      return models.map((model) =>
        toModel(
          model,
          versions.filter((version) => version.model_id === model.model_id),
        ),
      );
    },

    /**
     * Registers a version by its manifest (the model is created with its first version). The same
     * manifest again is answered with what exists (`created: false`); another one under a version
     * that exists is a conflict: a version's bytes never change.
     */
    async registerVersion(tenantId: string, modelId: string, manifest: ModelManifest) {
      if (manifest.name !== modelId) throw errors.manifestNameMismatch(modelId);
      const existing = await queries.version(db, tenantId, modelId, manifest.version);
      if (existing && !sameManifest(existing, manifest)) throw errors.versionExists();
      if (!existing) {
        try {
          await insertVersion(tenantId, manifest);
        } catch (error) {
          if (!deps.store.isUniqueViolation(error)) throw error;
          const raced = await queries.version(db, tenantId, modelId, manifest.version);
          if (!raced || !sameManifest(raced, manifest)) throw errors.versionExists();
        }
      }
      const { model, row } = await requireVersion(tenantId, modelId, manifest.version);
      return { created: !existing, version: toVersionDetail(row, model.deploy_version) };
    },

    /**
     * Stores a version's bytes as they arrive and keeps them only when their SHA-256 is the
     * manifest's. A version that has its file already keeps it (the same digest means the same
     * bytes), so a retried upload is harmless and a download in progress is never cut short.
     */
    async uploadFile(
      tenantId: string,
      modelId: string,
      version: string,
      body: AsyncIterable<Uint8Array>,
      declaredLength: number | undefined,
    ) {
      const { row } = await requireVersion(tenantId, modelId, version);
      const startedAt = now();
      const abandonedBefore = new Date(deps.clock.now().getTime() - ABANDONED_UPLOAD_MS).toISOString();
      await queries.deleteAbandonedUploads(db, tenantId, modelId, version, row.file_id, abandonedBefore);
      const target = { tenantId, modelId, version, fileId: deps.newId(), startedAt };
      const written = await writeUpload(db, target, body, {
        maxBytes: deps.options.maxBytes,
        declaredLength,
      });
      const attached =
        written.sha256 === row.sha256 &&
        (await queries.attachFile(db, tenantId, modelId, version, {
          file_id: target.fileId,
          size: written.size,
          chunk_size: CHUNK_BYTES,
          uploaded_at: now(),
        }));
      if (!attached) await queries.deleteFile(db, tenantId, target.fileId);
      if (written.sha256 !== row.sha256) throw errors.digestMismatch(written.sha256, row.sha256);
      deps.log.info({ tenantId, modelId, version, size: written.size, attached }, 'model file uploaded');
      return getVersion(tenantId, modelId, version);
    },

    /** Marks the version a sync installs when it names none; it must have its file. */
    async deploy(tenantId: string, modelId: string, version: string) {
      await requireFile(tenantId, modelId, version);
      await queries.setDeployVersion(db, tenantId, modelId, version, now());
      return getModel(tenantId, modelId);
    },

    /** A version's file for download: its digest and size, and a reader of any byte range of it. */
    async openFile(tenantId: string, modelId: string, version: string) {
      const file = await requireFile(tenantId, modelId, version);
      return {
        sha256: file.sha256,
        size: file.size,
        read: (range: ByteRange) =>
          readFile(db, tenantId, { fileId: file.file_id, chunkSize: file.chunk_size }, range),
      };
    },

    /**
     * Sends an edge appliance the model versions to install, as a `models_sync` device command
     * the fleet link carries (waiting while the store is offline); each comes with its manifest,
     * digest, size and download URL.
     */
    async requestSync(tenantId: string, edgeId: string, body: SyncBody, fileUrl: FileUrl) {
      const edge = await deps.edges.edge(tenantId, edgeId);
      if (!edge) throw errors.edgeNotFound();
      if (!edge.managed) throw errors.edgeNotManaged(edge.why);
      if (edge.state === 'revoked') throw errors.edgeNotManaged('it is revoked');
      if (edge.state === 'pending_activation') throw errors.edgeNotManaged('it has not enrolled yet');
      const models = await modelsToSync(tenantId, body, fileUrl);
      const command = await deps.edges.queueSync(tenantId, edgeId, { models }, SYNC_TTL_SECONDS);
      deps.log.info(
        {
          tenantId,
          edgeId,
          commandId: command.command_id,
          models: models.map((m) => `${m.name}@${m.version}`),
        },
        'model sync queued',
      );
      return {
        command_id: command.command_id,
        edge_id: edgeId,
        status: 'pending' as const,
        models,
        expires_at: command.expires_at,
      };
    },

    async syncState(tenantId: string, edgeId: string, commandId: string) {
      const command = await deps.edges.sync(tenantId, edgeId, commandId);
      if (!command) throw errors.syncNotFound();
      return toSyncState(edgeId, command);
    },
  };
}

export type VisionModelService = ReturnType<typeof createVisionModelService>;
