/**
 * The fleet overview: every store of a tenant with its live state in one paged read, for the fleet
 * console. Owns no tables: it composes what tenancy (the stores), sync (contact, queue, lag,
 * conflicts), MDM (devices, certificates, the appliance's version) and vision (cameras) know,
 * asking each for a whole page at once. Served under /v1/fleet.
 */
export { FLEET_READER_ROLES, fleetOverviewRoutes } from './routes.ts';
export { createFleetOverview, type FleetOverview, type FleetOverviewDeps } from './service.ts';
