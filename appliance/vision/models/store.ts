import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { type Clock, systemClock } from '../../../shared/clock.ts';
import { type LoadedModel, loadModel, ModelError, ModelManifestSchema } from '../detect/model.ts';
import { download } from './download.ts';
import {
  type Current,
  installedVersions,
  modelDir,
  readCurrent,
  removePartials,
  removeVersion,
  versionBase,
  writeAtomically,
  writeCurrent,
} from './files.ts';
import { type ProgressReporter, progressReporter } from './progress.ts';
import {
  MODEL_NAME,
  type ModelSyncResult,
  type ModelsSyncPayload,
  ModelsSyncPayloadSchema,
  type ModelsSyncResult,
  type SyncModel,
} from './schemas.ts';

export interface ModelStoreOptions {
  /** Where installed versions live: `<dataDir>/models`. */
  dir: string;
  /** The models the build ships (the repo's `models/`): what runs while none is installed. */
  bundledDir: string;
  /** The cloud (CLOUD_URL): model URLs must be on it, as the appliance's credential goes with them. */
  cloudUrl: string | undefined;
  /** The appliance's `sak_…` credential, which the cloud's download route accepts. */
  applianceKey: string | undefined;
  log: Logger;
  clock?: Clock | undefined;
  /** Outbound HTTP; undici's global dispatcher by default. */
  dispatcher?: Dispatcher | undefined;
}

/** Puts a loaded model into service (the runtime's detector swap); throws ModelError, changing nothing, when it cannot run. */
export type ApplyModel = (name: string, loaded: LoadedModel) => Promise<void>;

export interface SyncOptions {
  apply: ApplyModel;
  /** The downloads' progress over all models, 0 to 1, in steps of 5%. */
  onProgress?: ((fraction: number) => void) | undefined;
  signal?: AbortSignal | undefined;
}

/** The model that runs under a name: an installed version, or the bundled one. */
export interface CurrentModel {
  name: string;
  version: string;
  sha256: string;
  base: string;
  source: 'installed' | 'bundled';
  previous: string | null;
}

function bundledManifest(bundledDir: string, name: string) {
  const base = join(bundledDir, name);
  if (!existsSync(`${base}.onnx`)) return undefined;
  try {
    const manifest: unknown = JSON.parse(readFileSync(`${base}.json`, 'utf8'));
    return Value.Check(ModelManifestSchema, manifest) ? { base, manifest } : undefined;
  } catch {
    return undefined;
  }
}

export function createModelStore(options: ModelStoreOptions) {
  const log = options.log.child({ module: 'vision-models' });
  const clock = options.clock ?? systemClock;
  /** One sync (or rollback) at a time: two would race for the same current.json. */
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  function current(name: string): CurrentModel | undefined {
    if (!MODEL_NAME.test(name)) return undefined;
    const installed = readCurrent(options.dir, name);
    if (installed)
      return {
        name,
        version: installed.version,
        sha256: installed.sha256,
        base: versionBase(options.dir, name, installed.version),
        source: 'installed',
        previous: installed.previous,
      };
    const bundled = bundledManifest(options.bundledDir, name);
    if (!bundled) return undefined;
    const { version, sha256 } = bundled.manifest;
    return { name, version, sha256, base: bundled.base, source: 'bundled', previous: null };
  }

  /** The model's base path (`<base>.onnx`, `<base>.json`): the installed current version, else the bundled one. */
  function resolve(name: string): string {
    const found = current(name);
    if (!found)
      throw new ModelError(
        `no model "${name}": none installed in ${options.dir} and none shipped in ${options.bundledDir}`,
      );
    return found.base;
  }

  function checkEntry(entry: SyncModel) {
    if (!Value.Check(ModelManifestSchema, entry.manifest))
      throw new Error(
        `its manifest is invalid: ${Value.Errors(ModelManifestSchema, entry.manifest).First()?.message}`,
      );
    const manifest = entry.manifest;
    if (
      manifest.name !== entry.name ||
      manifest.version !== entry.version ||
      manifest.sha256 !== entry.sha256
    )
      throw new Error('its manifest names another model, version or sha256 than the command');
    if (!options.cloudUrl || !options.applianceKey)
      throw new Error('this appliance has no cloud (CLOUD_URL) and credential to download from');
    // The credential goes with the request: to this appliance's own cloud only.
    const url = URL.parse(entry.url, options.cloudUrl);
    if (url?.origin !== new URL(options.cloudUrl).origin)
      throw new Error(`its URL is not on this appliance's cloud (${options.cloudUrl})`);
    return url.href;
  }

  /** Whether the version is on disk already (kept for a rollback) as the same bytes; another copy is removed. */
  function keptCopy(entry: SyncModel) {
    if (!installedVersions(options.dir, entry.name).includes(entry.version)) return false;
    const base = versionBase(options.dir, entry.name, entry.version);
    try {
      const manifest = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as { sha256?: unknown };
      if (manifest.sha256 === entry.sha256) return true;
    } catch {}
    return false;
  }

  /** The version's files, downloaded unless the same version is kept on disk already. */
  async function fetchVersion(entry: SyncModel, url: string, sync: SyncOptions, progress: ProgressReporter) {
    const base = versionBase(options.dir, entry.name, entry.version);
    const kept = keptCopy(entry);
    if (!kept) {
      await download({
        url,
        credential: options.applianceKey!,
        sha256: entry.sha256,
        size: entry.size,
        target: `${base}.onnx`,
        signal: sync.signal,
        dispatcher: options.dispatcher,
        onBytes: (received) => progress.bytes(received),
      });
      await writeAtomically(`${base}.json`, `${JSON.stringify(entry.manifest, null, 2)}\n`);
    }
    progress.finished(entry.size);
    return { base, written: !kept };
  }

  /**
   * Installs one model: fetched, loaded (its digest checked again), put into service by `apply`,
   * and only then named current. Any failure removes what this sync wrote and leaves the running
   * model and current.json as they were.
   */
  async function installOne(
    entry: SyncModel,
    sync: SyncOptions,
    progress: ProgressReporter,
  ): Promise<ModelSyncResult> {
    const result = (status: ModelSyncResult['status'], reason?: string): ModelSyncResult => ({
      name: entry.name,
      version: entry.version,
      status,
      ...(reason ? { reason } : {}),
    });
    const running = current(entry.name);
    if (running?.version === entry.version && running.sha256 === entry.sha256) {
      progress.finished(entry.size);
      return result('unchanged');
    }
    if (running?.source === 'installed' && running.version === entry.version)
      return result(
        'failed',
        `version ${entry.version} is installed with other bytes: publish it as a new version`,
      );
    let written = false;
    try {
      const url = checkEntry(entry);
      await mkdir(modelDir(options.dir, entry.name), { recursive: true });
      await removePartials(options.dir, entry.name);
      const fetched = await fetchVersion(entry, url, sync, progress);
      written = fetched.written;
      const loaded = await loadModel(fetched.base);
      await sync.apply(entry.name, loaded);
      await switchCurrent(entry, running, sync.apply);
      log.info({ model: entry.name, version: entry.version, previous: running?.version }, 'model installed');
      return result('installed');
    } catch (error) {
      if (written) await removeVersion(options.dir, entry.name, entry.version);
      const reason = (error as Error).message;
      log.warn(
        { model: entry.name, version: entry.version, reason },
        'model not installed; the previous one stays',
      );
      return result('failed', reason);
    }
  }

  /** Names the new version current, keeping the one it replaces for a manual rollback and no other. */
  async function switchCurrent(entry: SyncModel, running: CurrentModel | undefined, apply: ApplyModel) {
    const previous = running?.source === 'installed' ? running.version : null;
    const next: Current = {
      name: entry.name,
      version: entry.version,
      sha256: entry.sha256,
      previous,
      installed_at: clock.now().toISOString(),
    };
    try {
      await writeCurrent(options.dir, next);
    } catch (error) {
      // The new model runs but could not be named current: put the named one back into service.
      if (running) await apply(entry.name, await loadModel(running.base)).catch(() => undefined);
      throw error;
    }
    for (const version of installedVersions(options.dir, entry.name))
      if (version !== entry.version && version !== previous)
        await removeVersion(options.dir, entry.name, version);
  }

  async function syncModels(payload: unknown, sync: SyncOptions): Promise<ModelsSyncResult> {
    if (!Value.Check(ModelsSyncPayloadSchema, payload))
      throw new Error(
        `models_sync: ${Value.Errors(ModelsSyncPayloadSchema, payload).First()?.message ?? 'invalid payload'}`,
      );
    const models = (payload as ModelsSyncPayload).models;
    const total = models.reduce((sum, model) => sum + model.size, 0);
    const progress = progressReporter(total, sync.onProgress);
    const results: ModelSyncResult[] = [];
    for (const entry of models) {
      if (sync.signal?.aborted) {
        results.push({ name: entry.name, version: entry.version, status: 'failed', reason: 'cancelled' });
        continue;
      }
      results.push(await installOne(entry, sync, progress));
    }
    progress.end();
    return { models: results };
  }

  async function rollback(name: string, apply: ApplyModel) {
    const running = current(name);
    if (running?.source !== 'installed')
      throw new ModelError(`${name} runs its bundled model: nothing to roll back`);
    const target = running.previous ?? undefined;
    const base = target
      ? versionBase(options.dir, name, target)
      : bundledManifest(options.bundledDir, name)?.base;
    if (!base) throw new ModelError(`${name} has neither a kept version nor a bundled model to go back to`);
    const loaded = await loadModel(base);
    await apply(name, loaded);
    if (target)
      await writeCurrent(options.dir, {
        name,
        version: target,
        sha256: loaded.manifest.sha256,
        previous: null,
        installed_at: clock.now().toISOString(),
      });
    else await rm(join(modelDir(options.dir, name), 'current.json'), { force: true });
    await removeVersion(options.dir, name, running.version);
    log.info({ model: name, from: running.version, to: loaded.manifest.version }, 'model rolled back');
    return { name, version: loaded.manifest.version, previous: running.version };
  }

  return {
    resolve,
    current,
    /** Versions of the model on disk: the current one and at most one before it. */
    versions: (name: string) => (MODEL_NAME.test(name) ? installedVersions(options.dir, name) : []),
    /** Installs the versions a `models_sync` command names, one model after the other; per-model results. */
    syncModels: (payload: unknown, sync: SyncOptions) => serial(() => syncModels(payload, sync)),
    /**
     * Goes back to the version kept before the current one (a manual rollback), or to the bundled
     * model when none was kept; the version rolled back from is removed.
     */
    rollback: (name: string, apply: ApplyModel) => serial(() => rollback(name, apply)),
  };
}

export type ModelStore = ReturnType<typeof createModelStore>;
