/**
 * Staff authentication on the appliance: PIN login against staff replicated from the cloud, the
 * appliance's own 12-hour session tokens signed with its own key, and acceptance of the cloud's
 * tokens through its cached JWKS, so terminals keep working when the cloud is unreachable.
 *
 * Wiring: `createStaffAuth(...)`, then register `applianceAuthPlugin` (after conventions),
 * `applianceAuthRoutes` under `/v1/auth` and `applianceJwksRoutes` at the root.
 */
export { type CloudJwks, type CloudJwksOptions, createCloudJwks, type FetchFunction } from './cloud-jwks.ts';
export { type ApplianceKeys, loadApplianceKeys, type PublishedJwk } from './keys.ts';
export { type ApplianceAuthOptions, applianceAuthPlugin, requireAuth } from './plugin.ts';
export { applianceAuthRoutes, applianceJwksRoutes } from './routes.ts';
export {
  type AuthContext,
  cloudSession,
  createStaffAuth,
  type PinLoginInput,
  type StaffAuth,
  type StaffAuthOptions,
  type StaffInput,
} from './service.ts';
export { createStaffStore, type Staff, type StaffStatus, type StaffStore } from './staff-store.ts';
export { createApplianceThrottle, DEFAULT_THROTTLE, type ThrottlePolicies } from './throttle.ts';
export { type AccessClaims, APPLIANCE_SESSION_TTL_SECONDS, createApplianceTokens } from './tokens.ts';
