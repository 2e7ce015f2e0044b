/**
 * The appliance's model store (issue 7): detection models installed from the cloud under
 * `<dataDir>/models/<name>/<version>.onnx|.json`, the running one named by `<name>/current.json`
 * (replaced atomically), the build's bundled `models/<name>` while none is installed. A
 * `models_sync` command downloads each version with the appliance's credential, checks its
 * digest, has the runtime load it beside the running model and names it current only once it runs;
 * anything else leaves the previous model current and running. The version before is kept on
 * disk for a manual rollback, no more.
 */

export {
  type ModelSyncResult,
  type ModelsSyncPayload,
  ModelsSyncPayloadSchema,
  type ModelsSyncResult,
} from './schemas.ts';
export {
  type ApplyModel,
  type CurrentModel,
  createModelStore,
  type ModelStore,
  type ModelStoreOptions,
  type SyncOptions,
} from './store.ts';
