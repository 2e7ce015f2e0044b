import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestCloud, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { signedInUser, type TenantWithAdmin, tenantWithAdmin } from './platform-client.ts';

const ids = (response: { json(): { data: Array<{ id: string }> } }) =>
  response.json().data.map((row) => row.id);

describe.each(backends)('platform routes across tenants on %s', (backend) => {
  let cloud: TestCloud;
  let a: TenantWithAdmin;
  let b: TenantWithAdmin;

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    a = await tenantWithAdmin(cloud, 'alpha');
    b = await tenantWithAdmin(cloud, 'bravo');
  });
  afterEach(() => cloud.close());

  /** A's rows as A's own admin sees them. */
  async function snapshotOfA() {
    const read = async (path: string) => (await a.admin.call('GET', path)).json().data;
    return {
      tenant: await read('/tenant'),
      brands: await read('/brands'),
      regions: await read('/regions'),
      locations: await read('/locations'),
      users: await read('/users'),
    };
  }

  it('answers 404 to B’s admin for A’s brand, region, location and user, and changes nothing', async () => {
    const ann = await cloud.services.tenancy.addUser(a.tenant.id, {
      email: 'ann@alpha.test',
      roles: ['manager'],
    });
    const before = await snapshotOfA();
    const attempts: Array<
      [method: 'GET' | 'PATCH' | 'DELETE', path: string, payload?: Record<string, unknown>]
    > = [
      ['GET', `/brands/${a.brand.id}`],
      ['PATCH', `/brands/${a.brand.id}`, { name: 'Taken over' }],
      ['DELETE', `/brands/${a.brand.id}`],
      ['GET', `/regions/${a.region.id}`],
      ['PATCH', `/regions/${a.region.id}`, { name: 'Taken over' }],
      ['DELETE', `/regions/${a.region.id}`],
      ['GET', `/locations/${a.location.id}`],
      ['PATCH', `/locations/${a.location.id}`, { name: 'Taken over', status: 'inactive' }],
      ['GET', `/users/${ann.id}`],
      ['PATCH', `/users/${ann.id}`, { roles: ['tenant_admin'], status: 'suspended', display_name: 'x' }],
      ['PATCH', `/users/${a.admin.user.id}`, { password: 'new-password-123' }],
      ['DELETE', `/users/${ann.id}`],
      ['DELETE', `/users/${a.admin.user.id}`],
    ];
    for (const [method, path, payload] of attempts) {
      const response = await b.admin.call(method, path, payload);
      expect(response.statusCode, `${method} ${path}`).toBe(404);
    }
    expect(await snapshotOfA()).toEqual(before);
    expect((await a.admin.call('GET', '/tenant')).statusCode).toBe(200);
  });

  it('refuses A’s brand or region ids in B’s locations', async () => {
    const foreignBrand = await b.admin.call('POST', '/locations', {
      name: 'Sneaky',
      brand_id: a.brand.id,
      region_id: b.region.id,
    });
    expect(foreignBrand.statusCode).toBe(400);
    expect(foreignBrand.json().error.details).toEqual([
      { field: 'body.brand_id', message: expect.any(String) },
    ]);

    const foreignRegion = await b.admin.call('PATCH', `/locations/${b.location.id}`, {
      region_id: a.region.id,
    });
    expect(foreignRegion.statusCode).toBe(400);
    expect(foreignRegion.json().error.details).toEqual([
      { field: 'body.region_id', message: expect.any(String) },
    ]);

    expect(ids(await b.admin.call('GET', '/locations'))).toEqual([b.location.id]);
    expect((await b.admin.call('GET', `/locations/${b.location.id}`)).json().data.region_id).toBe(
      b.region.id,
    );
    expect(ids(await b.admin.call('GET', `/locations?brand_id=${a.brand.id}`))).toEqual([]);
    const deleteUsedBrand = await a.admin.call('DELETE', `/brands/${a.brand.id}`);
    expect(deleteUsedBrand.json().error.code).toBe('IN_USE');
  });

  it('never lists A’s rows to B', async () => {
    await signedInUser(cloud, a.tenant.id, 'ann@alpha.test', ['manager']);
    expect(ids(await b.admin.call('GET', '/brands'))).toEqual([b.brand.id]);
    expect(ids(await b.admin.call('GET', '/regions'))).toEqual([b.region.id]);
    expect(ids(await b.admin.call('GET', '/locations'))).toEqual([b.location.id]);
    expect(ids(await b.admin.call('GET', '/users'))).toEqual([b.admin.user.id]);
    expect((await b.admin.call('GET', '/tenant')).json().data.id).toBe(b.tenant.id);

    const audit = (await b.admin.call('GET', '/audit-events')).json().data;
    expect(audit.length).toBeGreaterThan(0);
    for (const event of audit) expect(event.tenant_id).toBe(b.tenant.id);
    expect(audit.map((e: { user_id: string }) => e.user_id)).toEqual([b.admin.user.id]);
    const aEvent = (await a.admin.call('GET', '/audit-events')).json().data[0].id;
    expect(ids(await b.admin.call('GET', `/audit-events?cursor=${aEvent}`))).not.toContain(aEvent);
  });

  it('renames only the caller’s tenant, whatever the body says', async () => {
    const response = await b.admin.call('PATCH', '/tenant', { name: 'Renamed', id: a.tenant.id });
    expect(response.statusCode).toBe(400);
    await b.admin.call('PATCH', '/tenant', { name: 'Bravo Bistro' });
    expect((await cloud.services.tenancy.getTenant(a.tenant.id)).name).toBe('Tenant alpha');
    expect((await cloud.services.tenancy.getTenant(b.tenant.id)).name).toBe('Bravo Bistro');
  });
});
