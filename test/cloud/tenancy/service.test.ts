import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTenancyService, type TenancyService } from '../../../cloud/tenancy/service.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';
import { backends, openTestStore, type TestStore } from '../../support/stores.ts';

const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

describe.each(backends)('tenancy service on %s', (backend) => {
  let store: TestStore;
  let tenancy: TenancyService;

  beforeEach(async () => {
    store = await openTestStore(backend);
    tenancy = createTenancyService({ store, clock: createManualClock(), newId, hasher });
  });
  afterEach(() => store.destroy());

  async function tenantWithLocation(slug: string) {
    const tenant = await tenancy.createTenant({ slug, name: slug.toUpperCase() });
    const brand = await tenancy.createGroup('brands', tenant.id, 'Burgers');
    const region = await tenancy.createGroup('regions', tenant.id, 'North');
    const location = await tenancy.createLocation(tenant.id, {
      name: 'Main St',
      brand_id: brand.id,
      region_id: region.id,
    });
    return { tenant, brand, region, location };
  }

  it('creates a tenant with the free tier by default and refuses a duplicate slug', async () => {
    const tenant = await tenancy.createTenant({ slug: 'acme', name: 'Acme' });
    expect(tenant).toMatchObject({ slug: 'acme', tier: 'free', status: 'active' });
    await expect(tenancy.createTenant({ slug: 'acme', name: 'Other' })).rejects.toMatchObject({
      status: 409,
      code: 'TENANT_SLUG_TAKEN',
    });
    expect(await tenancy.tierOf(tenant.id)).toBe('free');
  });

  it('ties a location to one brand and one region of the same tenant', async () => {
    const a = await tenantWithLocation('a');
    const b = await tenantWithLocation('b');
    expect(a.location).toMatchObject({ brand_id: a.brand.id, region_id: a.region.id, timezone: 'UTC' });
    await expect(
      tenancy.createLocation(a.tenant.id, { name: 'X', brand_id: b.brand.id, region_id: a.region.id }),
    ).rejects.toMatchObject({ status: 400, details: [{ field: 'body.brand_id' }] });
    await expect(
      tenancy.createLocation(a.tenant.id, {
        name: 'Y',
        brand_id: a.brand.id,
        region_id: a.region.id,
        timezone: 'Mars/Base',
      }),
    ).rejects.toMatchObject({ details: [{ field: 'body.timezone' }] });
  });

  it('never returns or changes another tenant’s rows', async () => {
    const a = await tenantWithLocation('a');
    const b = await tenantWithLocation('b');
    await expect(tenancy.getLocation(b.tenant.id, a.location.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      tenancy.updateLocation(b.tenant.id, a.location.id, { name: 'stolen' }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(tenancy.getGroup('brands', b.tenant.id, a.brand.id)).rejects.toMatchObject({ status: 404 });
    await expect(tenancy.deleteGroup('regions', b.tenant.id, a.region.id)).rejects.toMatchObject({
      status: 404,
    });
    const listed = await tenancy.listLocations(b.tenant.id, { limit: 50 });
    expect(listed.items.map((l) => l.id)).toEqual([b.location.id]);
    const user = await tenancy.addUser(a.tenant.id, { email: 'ann@a.test', roles: ['manager'] });
    await expect(tenancy.getMember(b.tenant.id, user.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      tenancy.updateMember(b.tenant.id, user.id, { roles: ['tenant_admin'] }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(tenancy.removeMember(b.tenant.id, user.id)).rejects.toMatchObject({ status: 404 });
  });

  it('lets one person belong to several tenants with roles per tenant', async () => {
    const a = await tenantWithLocation('a');
    const b = await tenantWithLocation('b');
    const inA = await tenancy.addUser(a.tenant.id, {
      email: 'Sam@Both.test',
      password: 'correct horse',
      roles: ['manager'],
    });
    // A tenant's admin cannot claim an existing account by email; the operator can add it.
    await expect(tenancy.addUser(b.tenant.id, { email: 'sam@both.test', roles: [] })).rejects.toMatchObject({
      code: 'ACCOUNT_EXISTS',
    });
    const inB = await tenancy.addUser(
      b.tenant.id,
      { email: 'sam@both.test', roles: ['tenant_admin'] },
      { trusted: true },
    );
    expect(inB.id).toBe(inA.id);
    expect(inA).toMatchObject({ email: 'sam@both.test', roles: ['manager'], has_password: true });
    expect(inB.roles).toEqual(['tenant_admin']);
    expect((await tenancy.membershipsOf(inA.id)).map((m) => m.slug).sort()).toEqual(['a', 'b']);
    // Tenant b's admin cannot change an account tenant a relies on too, nor change roles on the way.
    for (const patch of [{ password: 'hijacked!!' }, { display_name: 'Hacked by B', roles: ['manager'] }]) {
      await expect(tenancy.updateMember(b.tenant.id, inA.id, patch)).rejects.toMatchObject({
        code: 'ACCOUNT_SHARED',
      });
    }
    expect((await tenancy.getMember(b.tenant.id, inA.id)).roles).toEqual(['tenant_admin']);
    expect((await tenancy.getMember(a.tenant.id, inA.id)).display_name).toBe('Sam@Both.test');
    await tenancy.updateMember(b.tenant.id, inA.id, { password: 'operator reset' }, { trusted: true });
    await expect(
      tenancy.addUser(b.tenant.id, { email: 'sam@both.test', roles: [] }, { trusted: true }),
    ).rejects.toMatchObject({ code: 'USER_ALREADY_MEMBER' });
  });

  it('refuses unknown roles, duplicate usernames and deleting a brand still in use', async () => {
    const a = await tenantWithLocation('a');
    await expect(
      tenancy.addUser(a.tenant.id, { email: 'x@a.test', roles: ['wizard'] }),
    ).rejects.toMatchObject({
      details: [{ field: 'body.roles' }],
    });
    await tenancy.addUser(a.tenant.id, { email: 'p@a.test', username: 'pat', roles: [] });
    await expect(
      tenancy.addUser(a.tenant.id, { email: 'q@a.test', username: 'PAT', roles: [] }),
    ).rejects.toMatchObject({
      code: 'USERNAME_TAKEN',
    });
    await expect(tenancy.deleteGroup('brands', a.tenant.id, a.brand.id)).rejects.toMatchObject({
      code: 'IN_USE',
    });
  });

  it('pages through lists by cursor', async () => {
    const { tenant } = await tenantWithLocation('a');
    for (const n of [1, 2, 3, 4, 5]) await tenancy.createGroup('regions', tenant.id, `R${n}`);
    const first = await tenancy.listGroups('regions', tenant.id, { limit: 4 });
    const second = await tenancy.listGroups('regions', tenant.id, { limit: 4, after: first.nextCursor! });
    expect(first.items).toHaveLength(4);
    expect(second.items).toHaveLength(2);
    expect(second.nextCursor).toBeNull();
  });
});
