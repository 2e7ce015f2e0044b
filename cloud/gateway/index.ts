/**
 * The cloud's front door: the authentication plugin every module's routes rely on (verified token,
 * live session, roles), per-tenant-tier rate limiting, and the WebSocket upgrade dispatch.
 */
export { type AuthContext, authPlugin, requireAuth } from './auth.ts';
export {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimiter,
  TIER_LIMITS,
} from './rate-limit.ts';
export { rateLimitPlugin } from './rate-limit-plugin.ts';
export { refuseUnclaimedUpgrades } from './upgrades.ts';
