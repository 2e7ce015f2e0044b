/**
 * Tenancy: tenants, their brands, regions and locations, users and their roles per tenant.
 * Owns the tenants, brands, regions, locations, users and memberships tables; served under
 * /v1/platform/*, which admits platform_admin, tenant_admin and system_admin.
 */
export { platformRoutes } from './routes.ts';
export { LIMITS, MemberSchema } from './schemas.ts';
export { createTenancyService, isActiveMember, type StaffRecord, type TenancyService } from './service.ts';
export { type LocationRow, type TenancyTables, TIERS, type Tier, type UserRow } from './tables.ts';
