/**
 * Tenancy: tenants, their brands, regions and locations, users and their roles per tenant.
 * Owns the tenants, brands, regions, locations, users and memberships tables; served under
 * /v1/platform/*, which admits platform_admin, tenant_admin and system_admin.
 */
export { platformRoutes } from './routes.ts';
export { createTenancyService, type TenancyService } from './service.ts';
