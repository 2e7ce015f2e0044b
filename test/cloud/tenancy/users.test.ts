import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createTestCloud, loginTokens, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { PASSWORD, signedInUser, type TenantWithAdmin, tenantWithAdmin } from './platform-client.ts';

const MEMBER_FIELDS = [
  'created_at',
  'display_name',
  'email',
  'email_verified',
  'first_name',
  'has_password',
  'has_pin',
  'id',
  'last_name',
  'roles',
  'status',
  'tenant_id',
  'username',
];

describe.each(backends)('platform routes: users and audit on %s', (backend) => {
  let cloud: TestCloud;
  let acme: TenantWithAdmin;

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    acme = await tenantWithAdmin(cloud, 'acme');
  });
  afterEach(() => cloud.close());

  const me = (token: string) => cloud.app.inject({ url: '/v1/auth/me', headers: bearer(token) });

  it('adds, lists, shows, changes and removes a user, never showing a hash', async () => {
    const created = await acme.admin.call('POST', '/users', {
      email: 'Sam@Acme.test',
      username: 'sam.k',
      password: PASSWORD,
      pin: '123456',
      first_name: 'Sam',
      last_name: 'Kay',
      roles: ['manager'],
    });
    expect(created.statusCode).toBe(201);
    const sam = created.json().data;
    expect(Object.keys(sam).sort()).toEqual(MEMBER_FIELDS);
    expect(sam).toMatchObject({
      tenant_id: acme.tenant.id,
      email: 'sam@acme.test',
      username: 'sam.k',
      display_name: 'Sam Kay',
      roles: ['manager'],
      status: 'active',
      has_password: true,
      has_pin: true,
    });
    expect(created.body).not.toMatch(/hash|argon/);

    const listed = await acme.admin.call('GET', '/users');
    expect(listed.json().data.map((u: { email: string }) => u.email)).toEqual([
      'admin@acme.test',
      'sam@acme.test',
    ]);
    expect((await acme.admin.call('GET', `/users/${sam.id}`)).json().data).toEqual(sam);

    const renamed = await acme.admin.call('PATCH', `/users/${sam.id}`, {
      display_name: 'Sammy',
      pin: '654321',
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data).toMatchObject({ display_name: 'Sammy', roles: ['manager'] });

    const again = await acme.admin.call('POST', '/users', { email: 'sam@acme.test', roles: [] });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('USER_ALREADY_MEMBER');

    const removed = await acme.admin.call('DELETE', `/users/${sam.id}`);
    expect(removed.statusCode).toBe(204);
    expect((await acme.admin.call('GET', `/users/${sam.id}`)).statusCode).toBe(404);
    expect((await acme.admin.call('DELETE', `/users/${sam.id}`)).statusCode).toBe(404);
  });

  it('pages through users', async () => {
    for (const name of ['u1', 'u2', 'u3']) {
      await acme.admin.call('POST', '/users', { email: `${name}@acme.test`, roles: ['staff'] });
    }
    const first = await acme.admin.call('GET', '/users?limit=2');
    const cursor = first.json().meta.pagination.next_cursor;
    expect(cursor).toBe(first.json().data[1].id);
    const second = await acme.admin.call('GET', `/users?limit=2&cursor=${cursor}`);
    const emails = [...first.json().data, ...second.json().data].map((u: { email: string }) => u.email);
    expect(emails).toEqual(['admin@acme.test', 'u1@acme.test', 'u2@acme.test', 'u3@acme.test']);
  });

  it('refuses invalid user input, naming the field', async () => {
    const base = { email: 'new@acme.test', roles: ['staff'] };
    const cases: Array<[payload: Record<string, unknown>, field: string]> = [
      [{ ...base, email: 'not-an-email' }, 'body.email'],
      [{ ...base, pin: '12345' }, 'body.pin'],
      [{ ...base, pin: '12a456' }, 'body.pin'],
      [{ ...base, username: 'a' }, 'body.username'],
      [{ ...base, username: 'has space' }, 'body.username'],
      [{ ...base, password: 'short' }, 'body.password'],
      [{ ...base, roles: ['overlord'] }, 'body.roles'],
      [{ ...base, roles: undefined }, 'body.roles'],
      [{ ...base, password_hash: 'x' }, 'body.password_hash'],
      [{ ...base, tenant_id: acme.tenant.id }, 'body.tenant_id'],
    ];
    for (const [payload, field] of cases) {
      const response = await acme.admin.call('POST', '/users', payload);
      expect(response.statusCode, field).toBe(400);
      expect(response.json().error.code).toBe('INVALID_REQUEST');
      expect(response.json().error.details).toContainEqual(expect.objectContaining({ field }));
    }
    const badStatus = await acme.admin.call('PATCH', `/users/${acme.admin.user.id}`, { status: 'banned' });
    expect(badStatus.json().error.details).toContainEqual(expect.objectContaining({ field: 'body.status' }));
    const malformed = await acme.admin.call('GET', '/users/42');
    expect(malformed.json().error.details).toEqual([
      { field: 'params.user_id', message: expect.any(String) },
    ]);
    expect((await acme.admin.call('GET', '/users')).json().data).toHaveLength(1);
  });

  it('lets only a system_admin grant system_admin', async () => {
    const grant = await acme.admin.call('POST', '/users', { email: 'op@acme.test', roles: ['system_admin'] });
    expect(grant.statusCode).toBe(403);
    const self = await acme.admin.call('PATCH', `/users/${acme.admin.user.id}`, {
      roles: ['tenant_admin', 'system_admin'],
    });
    expect(self.statusCode).toBe(403);
    expect((await cloud.services.tenancy.getMember(acme.tenant.id, acme.admin.user.id)).roles).toEqual([
      'tenant_admin',
    ]);

    const operator = await signedInUser(cloud, acme.tenant.id, 'root@acme.test', ['system_admin']);
    const granted = await operator.call('POST', '/users', { email: 'op@acme.test', roles: ['system_admin'] });
    expect(granted.statusCode).toBe(201);
  });

  it('ends a suspended user’s sessions at once', async () => {
    const sam = await signedInUser(cloud, acme.tenant.id, 'sam@acme.test', ['manager']);
    expect((await me(sam.access_token)).statusCode).toBe(200);

    const suspended = await acme.admin.call('PATCH', `/users/${sam.user.id}`, { status: 'suspended' });
    expect(suspended.json().data.status).toBe('suspended');
    expect((await me(sam.access_token)).statusCode).toBe(401);
    const refresh = await cloud.app.inject({
      method: 'POST',
      url: '/v1/auth/refresh',
      payload: { refresh_token: sam.refresh_token },
    });
    expect(refresh.statusCode).toBe(401);
    const login = await cloud.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: 'sam@acme.test', password: PASSWORD },
    });
    expect(login.statusCode).toBe(403);
  });

  it('ends sessions when roles change or the user is removed, not for a name change', async () => {
    const sam = await signedInUser(cloud, acme.tenant.id, 'sam@acme.test', ['tenant_admin']);
    await acme.admin.call('PATCH', `/users/${sam.user.id}`, { first_name: 'Samuel' });
    expect((await sam.call('GET', '/tenant')).statusCode).toBe(200);

    await acme.admin.call('PATCH', `/users/${sam.user.id}`, { roles: ['manager'] });
    expect((await sam.call('GET', '/tenant')).statusCode).toBe(401);
    const relogged = await loginTokens(cloud.app, { email: 'sam@acme.test', password: PASSWORD });
    expect(relogged.user.roles).toEqual(['manager']);

    await acme.admin.call('DELETE', `/users/${sam.user.id}`);
    expect((await me(relogged.access_token)).statusCode).toBe(401);
  });

  it('shows the tenant’s audit trail newest first, filtered and paged backwards', async () => {
    await signedInUser(cloud, acme.tenant.id, 'sam@acme.test', ['manager']);
    await loginTokens(cloud.app, { email: 'sam@acme.test', password: PASSWORD });

    const all = await acme.admin.call('GET', '/audit-events');
    expect(all.statusCode).toBe(200);
    const events = all.json().data;
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({
      tenant_id: acme.tenant.id,
      action: 'auth.login_password',
      outcome: 'success',
      details: { mfa: false },
    });
    const ids = events.map((e: { id: string }) => e.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(all.json().meta.pagination).toEqual({ limit: 50, next_cursor: null });

    const firstPage = await acme.admin.call('GET', '/audit-events?limit=2');
    expect(firstPage.json().meta.pagination.next_cursor).toBe(ids[1]);
    const older = await acme.admin.call('GET', `/audit-events?limit=2&cursor=${ids[1]}`);
    expect(older.json().data.map((e: { id: string }) => e.id)).toEqual([ids[2]]);
    expect(older.json().meta.pagination.next_cursor).toBeNull();

    const filtered = await acme.admin.call('GET', '/audit-events?action=auth.login_pin');
    expect(filtered.json().data).toEqual([]);
    const badCursor = await acme.admin.call('GET', '/audit-events?cursor=yesterday');
    expect(badCursor.json().error.details).toEqual([
      { field: 'querystring.cursor', message: expect.any(String) },
    ]);
  });
});
