/**
 * The cloud's front door: the authentication plugin every module's routes rely on (verified token,
 * live session, roles), per-tenant-tier rate limiting, the WebSocket upgrade dispatch, and what `/`
 * answers.
 */
export { type AuthContext, authPlugin, requireAuth } from './auth.ts';
export {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimiter,
  TIER_LIMITS,
} from './rate-limit.ts';
export { rateLimitPlugin } from './rate-limit-plugin.ts';
export { rootRoutes } from './root.ts';
export { refuseUnclaimedUpgrades } from './upgrades.ts';
