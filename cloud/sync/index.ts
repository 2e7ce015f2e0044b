/**
 * Sync with the stores: appliances' credentials, the push of their changes (validated, merged and
 * applied row by row, group-committed), the pull feed back, and the routes under /v1/sync.
 */
export { syncRoutes } from './routes.ts';
export { type CloudEdit, type CloudEditResult, createSyncService, type SyncService } from './service.ts';
export type { SyncStatus } from './status.ts';
export type { SyncTables } from './tables.ts';
