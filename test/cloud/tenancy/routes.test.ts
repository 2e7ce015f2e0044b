import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestCloud, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { platform, signedInUser, type TenantWithAdmin, tenantWithAdmin } from './platform-client.ts';

const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';

describe.each(backends)('platform routes: tenant and structure on %s', (backend) => {
  let cloud: TestCloud;
  let acme: TenantWithAdmin;

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    acme = await tenantWithAdmin(cloud, 'acme');
  });
  afterEach(() => cloud.close());

  const routes = (): Array<[method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string]> => [
    ['GET', '/tenant'],
    ['PATCH', '/tenant'],
    ['GET', '/tenants'],
    ['POST', '/tenants'],
    ['PATCH', `/tenants/${acme.tenant.id}`],
    ['GET', '/brands'],
    ['POST', '/brands'],
    ['GET', `/brands/${acme.brand.id}`],
    ['PATCH', `/brands/${acme.brand.id}`],
    ['DELETE', `/brands/${acme.brand.id}`],
    ['GET', '/regions'],
    ['POST', '/regions'],
    ['GET', `/regions/${acme.region.id}`],
    ['PATCH', `/regions/${acme.region.id}`],
    ['DELETE', `/regions/${acme.region.id}`],
    ['GET', '/locations'],
    ['POST', '/locations'],
    ['GET', `/locations/${acme.location.id}`],
    ['PATCH', `/locations/${acme.location.id}`],
    ['GET', '/users'],
    ['POST', '/users'],
    ['GET', `/users/${acme.admin.user.id}`],
    ['PATCH', `/users/${acme.admin.user.id}`],
    ['DELETE', `/users/${acme.admin.user.id}`],
    ['GET', '/audit-events'],
  ];

  it('answers 401 without a token and 403 to a role outside the platform admins', async () => {
    const anonymous = platform(cloud);
    const manager = await signedInUser(cloud, acme.tenant.id, 'mia@acme.test', ['manager', 'finance']);
    for (const [method, path] of routes()) {
      const unauthenticated = await anonymous(method, path, method === 'GET' ? undefined : {});
      expect(unauthenticated.statusCode, `${method} ${path}`).toBe(401);
      expect(unauthenticated.json().error.code).toBe('MISSING_TOKEN');
      const forbidden = await manager.call(method, path, method === 'GET' ? undefined : {});
      expect(forbidden.statusCode, `${method} ${path}`).toBe(403);
      expect(forbidden.json().error.code).toBe('FORBIDDEN');
    }
  });

  it('shows and renames the caller’s own tenant, and nothing else', async () => {
    const shown = await acme.admin.call('GET', '/tenant');
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toMatchObject({
      data: { id: acme.tenant.id, slug: 'acme', tier: 'professional', status: 'active' },
      meta: { request_id: expect.any(String), timestamp: expect.any(String) },
    });

    const renamed = await acme.admin.call('PATCH', '/tenant', { name: 'Acme Foods' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data).toMatchObject({ id: acme.tenant.id, name: 'Acme Foods', slug: 'acme' });

    const tierChange = await acme.admin.call('PATCH', '/tenant', { name: 'Acme', tier: 'enterprise' });
    expect(tierChange.statusCode).toBe(400);
    expect(tierChange.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: [{ field: 'body.tier', message: 'is not an accepted field' }],
    });
    expect((await cloud.services.tenancy.getTenant(acme.tenant.id)).tier).toBe('professional');
  });

  it('keeps the tenant directory to system_admin', async () => {
    const tenantAdminCalls = [
      await acme.admin.call('GET', '/tenants'),
      await acme.admin.call('POST', '/tenants', { slug: 'evil', name: 'Evil' }),
      await acme.admin.call('PATCH', `/tenants/${acme.tenant.id}`, { tier: 'enterprise' }),
    ];
    for (const response of tenantAdminCalls) expect(response.statusCode).toBe(403);
    expect(await cloud.services.tenancy.tenantBySlug('evil')).toBeUndefined();

    const platformAdmin = await signedInUser(cloud, acme.tenant.id, 'pat@acme.test', ['platform_admin']);
    expect((await platformAdmin.call('GET', '/tenants')).statusCode).toBe(403);
  });

  it('lets system_admin create, list and change any tenant', async () => {
    const operator = await signedInUser(cloud, acme.tenant.id, 'op@acme.test', ['system_admin']);
    const created = await operator.call('POST', '/tenants', { slug: 'bistro-9', name: 'Bistro' });
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({ slug: 'bistro-9', tier: 'free', status: 'active' });
    const bistroId = created.json().data.id;

    const duplicate = await operator.call('POST', '/tenants', { slug: 'bistro-9', name: 'Again' });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().error).toMatchObject({
      code: 'TENANT_SLUG_TAKEN',
      details: [{ field: 'body.slug' }],
    });

    for (const slug of ['-bistro', 'Bistro', 'bistro-', 'a'.repeat(64), 'bi_stro']) {
      const invalid = await operator.call('POST', '/tenants', { slug, name: 'Bad' });
      expect(invalid.statusCode, slug).toBe(400);
      expect(invalid.json().error.details).toContainEqual(expect.objectContaining({ field: 'body.slug' }));
    }

    const changed = await operator.call('PATCH', `/tenants/${bistroId}`, {
      tier: 'enterprise',
      status: 'suspended',
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().data).toMatchObject({ id: bistroId, tier: 'enterprise', status: 'suspended' });
    expect((await operator.call('PATCH', `/tenants/${UNKNOWN_ID}`, { name: 'Ghost' })).statusCode).toBe(404);
    const badTier = await operator.call('PATCH', `/tenants/${bistroId}`, { tier: 'platinum' });
    expect(badTier.json().error.details).toContainEqual(expect.objectContaining({ field: 'body.tier' }));

    const listed = await operator.call('GET', '/tenants');
    expect(listed.json().data.map((t: { slug: string }) => t.slug)).toEqual(['acme', 'bistro-9']);
    expect(listed.json().meta.pagination).toEqual({ limit: 50, next_cursor: null });
  });

  it.each([
    ['brands', 'brand_id'],
    ['regions', 'region_id'],
  ] as const)('creates, lists, renames and deletes %s', async (kind, param) => {
    const seeded = kind === 'brands' ? acme.brand : acme.region;
    const created = await acme.admin.call('POST', `/${kind}`, { name: 'Pizza' });
    expect(created.statusCode).toBe(201);
    const group = created.json().data;
    expect(group).toMatchObject({ tenant_id: acme.tenant.id, name: 'Pizza' });

    const listed = await acme.admin.call('GET', `/${kind}`);
    expect(listed.json().data.map((g: { id: string }) => g.id)).toEqual([seeded.id, group.id]);
    expect((await acme.admin.call('GET', `/${kind}/${group.id}`)).json().data).toEqual(group);

    const renamed = await acme.admin.call('PATCH', `/${kind}/${group.id}`, { name: 'Pasta' });
    expect(renamed.json().data).toMatchObject({ id: group.id, name: 'Pasta' });

    const duplicate = await acme.admin.call('POST', `/${kind}`, { name: seeded.name });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().error).toMatchObject({ code: 'NAME_TAKEN', details: [{ field: 'body.name' }] });
    const renamedOnto = await acme.admin.call('PATCH', `/${kind}/${group.id}`, { name: seeded.name });
    expect(renamedOnto.statusCode).toBe(409);

    const inUse = await acme.admin.call('DELETE', `/${kind}/${seeded.id}`);
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json().error.code).toBe('IN_USE');

    const deleted = await acme.admin.call('DELETE', `/${kind}/${group.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await acme.admin.call('GET', `/${kind}/${group.id}`)).statusCode).toBe(404);
    expect((await acme.admin.call('DELETE', `/${kind}/${UNKNOWN_ID}`)).statusCode).toBe(404);

    const malformed = await acme.admin.call('GET', `/${kind}/not-a-uuid`);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: [{ field: `params.${param}` }],
    });
    const tooLong = await acme.admin.call('POST', `/${kind}`, { name: 'x'.repeat(121) });
    expect(tooLong.json().error.details).toEqual([{ field: 'body.name', message: expect.any(String) }]);
  });

  it('pages through a list with limit and cursor', async () => {
    for (const name of ['B2', 'B3', 'B4']) await acme.admin.call('POST', '/brands', { name });
    const first = await acme.admin.call('GET', '/brands?limit=3');
    expect(first.json().meta.pagination).toEqual({ limit: 3, next_cursor: expect.any(String) });
    const second = await acme.admin.call(
      'GET',
      `/brands?limit=3&cursor=${first.json().meta.pagination.next_cursor}`,
    );
    expect(second.json().meta.pagination).toEqual({ limit: 3, next_cursor: null });
    const names = [...first.json().data, ...second.json().data].map((b: { name: string }) => b.name);
    expect(names).toEqual(['Brand', 'B2', 'B3', 'B4']);

    for (const query of ['limit=0', 'limit=201', 'limit=ten', 'cursor=nope', 'sort=name']) {
      const invalid = await acme.admin.call('GET', `/brands?${query}`);
      expect(invalid.statusCode, query).toBe(400);
      expect(invalid.json().error.code).toBe('INVALID_REQUEST');
    }
    expect((await acme.admin.call('GET', '/brands?limit=0')).json().error.details).toEqual([
      { field: 'querystring.limit', message: expect.any(String) },
    ]);
  });

  it('creates, filters, shows and changes locations', async () => {
    const brand = (await acme.admin.call('POST', '/brands', { name: 'Tacos' })).json().data;
    const created = await acme.admin.call('POST', '/locations', {
      name: 'Harbour',
      brand_id: brand.id,
      region_id: acme.region.id,
      timezone: 'Europe/Paris',
      address: '1 Quay Street',
    });
    expect(created.statusCode).toBe(201);
    const location = created.json().data;
    expect(location).toMatchObject({ tenant_id: acme.tenant.id, timezone: 'Europe/Paris', status: 'active' });

    const byBrand = await acme.admin.call('GET', `/locations?brand_id=${brand.id}`);
    expect(byBrand.json().data.map((l: { id: string }) => l.id)).toEqual([location.id]);
    const byRegion = await acme.admin.call('GET', `/locations?region_id=${acme.region.id}&limit=1`);
    expect(byRegion.json().data.map((l: { id: string }) => l.id)).toEqual([acme.location.id]);
    expect(byRegion.json().meta.pagination.next_cursor).toBe(acme.location.id);
    expect((await acme.admin.call('GET', `/locations/${location.id}`)).json().data).toEqual(location);

    const changed = await acme.admin.call('PATCH', `/locations/${location.id}`, {
      brand_id: acme.brand.id,
      status: 'inactive',
      address: null,
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().data).toMatchObject({ brand_id: acme.brand.id, status: 'inactive', address: null });

    const duplicate = await acme.admin.call('PATCH', `/locations/${location.id}`, {
      name: acme.location.name,
    });
    expect(duplicate.statusCode).toBe(409);
    expect((await acme.admin.call('GET', `/locations/${UNKNOWN_ID}`)).statusCode).toBe(404);
  });

  it('refuses invalid location input field by field', async () => {
    const base = { name: 'New', brand_id: acme.brand.id, region_id: acme.region.id };
    const cases: Array<[payload: Record<string, unknown>, field: string]> = [
      [{ ...base, timezone: 'Mars/Base' }, 'body.timezone'],
      [{ ...base, brand_id: 'brand-1' }, 'body.brand_id'],
      [{ ...base, region_id: undefined }, 'body.region_id'],
      [{ ...base, status: 'inactive' }, 'body.status'],
      [{ ...base, brand_id: '01900000-0000-7000-8000-000000000001' }, 'body.brand_id'],
    ];
    for (const [payload, field] of cases) {
      const response = await acme.admin.call('POST', '/locations', payload);
      expect(response.statusCode, field).toBe(400);
      expect(response.json().error.code).toBe('INVALID_REQUEST');
      expect(response.json().error.details).toContainEqual(expect.objectContaining({ field }));
    }
    const malformed = await acme.admin.call('PATCH', '/locations/123', { name: 'X' });
    expect(malformed.json().error.details).toEqual([
      { field: 'params.location_id', message: expect.any(String) },
    ]);
    const empty = await acme.admin.call('PATCH', `/locations/${acme.location.id}`, {});
    expect(empty.statusCode).toBe(400);
  });
});
