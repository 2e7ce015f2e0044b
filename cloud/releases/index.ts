/**
 * Releases in the cloud (issue 25): a tenant's appliance releases (archives uploaded in one
 * request or resumably, checked, listed, retired, downloaded by byte range), the cloud-wide update
 * signing keys and their rotation, and the signed update manifests rollouts send to appliances;
 * rollouts, which ship a release to the tenant's stores in waves, run by the rollout engine.
 * Owns the update_keys, releases, release_uploads, rollouts and rollout_stores tables and the files
 * under `<DATA_DIR>/releases`; served under /v1/mdm.
 */
export { DEFAULT_RELEASE_OPTIONS, type ReleaseOptions } from './context.ts';
export type { ManifestOptions } from './manifests.ts';
export { createRolloutService, type RolloutService } from './rollouts.ts';
export {
  loadRolloutConfig,
  ROLLOUT_SETTINGS,
  ROLLOUT_VARIABLES,
  type RolloutConfig,
} from './rollouts-config.ts';
export { type ReleaseRouteOptions, releasesRoutes } from './routes.ts';
export { createReleases, type ReleaseDeps, type ReleaseService } from './service.ts';
export type { ReleaseTables } from './tables.ts';
export type { Release, Upload } from './views.ts';
