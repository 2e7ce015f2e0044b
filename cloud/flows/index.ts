/**
 * Work that spans cloud domains, each flow named for what it does: a location's events reaching
 * webhooks and alerts, synced rows reaching P&L and vision, staff reaching the stores, alerts opening incidents, store
 * devices and revocations reaching the fleet link, changes reaching the consoles' feed, and what one domain asks another. The composition root links them; no domain imports
 * another's internals to do this work itself.
 */
export { linkAiopsMetrics } from './aiops-metrics.ts';
export { linkAlertIncidents, tenantUserOf } from './alert-incident.ts';
export { commerceStores, linkCommerce, linkStoreMenus, menuLookups, storeEdits } from './commerce.ts';
export { linkConsoleFrames, publicationFrames } from './console-frames.ts';
export { linkEdgeAlerts } from './edge-alerts.ts';
export { type Fleet, startFleet } from './fleet.ts';
export { type CommandDispatch, createCommandDispatch } from './fleet-commands.ts';
export { locationEvents } from './location-events.ts';
export { deviceOrNothing, locationExists, locationName, tenantActive } from './lookups.ts';
export { linkPnl, pnlStaffExists, pnlStructure } from './pnl-sync.ts';
export { createRevocationPush, type RevocationPush } from './push-revocations.ts';
export { linkStaffSync, staffOf } from './staff-sync.ts';
export { applianceCredentials, linkStoreDevices } from './store-devices.ts';
export { linkVision, visionEdges } from './vision.ts';
