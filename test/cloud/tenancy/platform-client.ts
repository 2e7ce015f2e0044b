import { bearer, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';

export const PASSWORD = 'correct-horse-battery';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Calls /v1/platform as the holder of `token` (anonymously without one). */
export const platform =
  (cloud: TestCloud, token?: string) => (method: Method, path: string, payload?: Record<string, unknown>) =>
    cloud.app.inject({
      method,
      url: `/v1/platform${path}`,
      ...(payload !== undefined ? { payload } : {}),
      headers: token ? bearer(token) : {},
    });

/** Adds a user with a password to the tenant and logs them in. */
export async function signedInUser(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  const member = await cloud.services.tenancy.addUser(tenantId, { email, password: PASSWORD, roles });
  const tokens = await loginTokens(cloud.app, { email, password: PASSWORD });
  return { member, ...tokens, call: platform(cloud, tokens.access_token) };
}

/** A seeded tenant (one brand, region and location) with a signed-in admin. */
export async function tenantWithAdmin(cloud: TestCloud, slug: string, roles: string[] = ['tenant_admin']) {
  const seeded = await seedTenant(cloud.services, slug);
  const admin = await signedInUser(cloud, seeded.tenant.id, `admin@${slug}.test`, roles);
  return { ...seeded, admin };
}

export type TenantWithAdmin = Awaited<ReturnType<typeof tenantWithAdmin>>;
