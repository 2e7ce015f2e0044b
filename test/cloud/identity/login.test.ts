import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';

describe.each(backends)('login on %s', (backend) => {
  let cloud: TestCloud;
  let acme: Awaited<ReturnType<typeof seedTenant>>;
  let globex: Awaited<ReturnType<typeof seedTenant>>;

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    acme = await seedTenant(cloud.services, 'acme');
    globex = await seedTenant(cloud.services, 'globex');
    await cloud.services.tenancy.addUser(acme.tenant.id, {
      email: 'ada@acme.test',
      username: 'ada',
      password: 'ada-password',
      pin: '123456',
      roles: ['manager'],
    });
  });
  afterEach(() => cloud.close());

  const login = (payload: Record<string, unknown>) =>
    cloud.app.inject({ method: 'POST', url: '/v1/auth/login', payload });
  const pinLogin = (payload: Record<string, unknown>) =>
    cloud.app.inject({ method: 'POST', url: '/v1/auth/login/pin', payload });

  it('logs in by email and password with a one-hour token pair and the user', async () => {
    const response = await login({ email: 'ADA@acme.test', password: 'ada-password' });
    expect(response.statusCode).toBe(200);
    const { status } = response.json();
    expect(status).toMatchObject({ type: 'success', token_type: 'Bearer', expires_in: 3600 });
    expect(status.user).toEqual({
      id: expect.any(String),
      tenant_id: acme.tenant.id,
      email: 'ada@acme.test',
      roles: ['manager'],
    });
    expect(status.refresh_token).not.toBe(status.access_token);
  });

  it('issues access tokens with exactly the claims of the spec', async () => {
    const { access_token } = await loginTokens(cloud.app, {
      email: 'ada@acme.test',
      password: 'ada-password',
    });
    const [header, payload] = access_token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(Object.keys(payload).sort()).toEqual([
      'email',
      'exp',
      'iat',
      'roles',
      'session_id',
      'sub',
      'tenant_id',
    ]);
    expect(payload.exp - payload.iat).toBe(3600);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
  });

  it('answers a wrong password and an unknown user alike', async () => {
    const wrong = await login({ email: 'ada@acme.test', password: 'nope' });
    const unknown = await login({ email: 'nobody@acme.test', password: 'nope' });
    for (const response of [wrong, unknown]) {
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toMatchObject({ code: 'INVALID_CREDENTIALS' });
      expect(response.json().meta.request_id).toBe(response.headers['x-request-id']);
    }
  });

  it('asks which tenant when the user belongs to several, and honours tenant_slug', async () => {
    await cloud.services.tenancy.addUser(
      globex.tenant.id,
      { email: 'ada@acme.test', roles: ['tenant_admin'] },
      { trusted: true },
    );
    const ambiguous = await login({ email: 'ada@acme.test', password: 'ada-password' });
    expect(ambiguous.statusCode).toBe(400);
    expect(ambiguous.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: [{ field: 'body.tenant_slug', message: 'is required: one of acme, globex' }],
    });
    const chosen = await loginTokens(cloud.app, {
      email: 'ada@acme.test',
      password: 'ada-password',
      tenant_slug: 'globex',
    });
    expect(chosen.user).toMatchObject({ tenant_id: globex.tenant.id, roles: ['tenant_admin'] });
  });

  it('refuses a tenant the user does not belong to, and a suspended tenant', async () => {
    const foreign = await login({ email: 'ada@acme.test', password: 'ada-password', tenant_slug: 'globex' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.code).toBe('TENANT_ACCESS_DENIED');
    await cloud.services.tenancy.updateTenant(acme.tenant.id, { status: 'suspended' });
    const suspended = await login({ email: 'ada@acme.test', password: 'ada-password' });
    expect(suspended.json().error.code).toBe('TENANT_SUSPENDED');
  });

  it('stores the device context with the session', async () => {
    const { access_token } = await loginTokens(cloud.app, {
      email: 'ada@acme.test',
      password: 'ada-password',
      device_id: 'pos-1',
      device_name: 'Front counter',
    });
    const session = await cloud.app.inject({
      url: '/v1/auth/session',
      headers: { ...bearer(access_token), 'user-agent': 'pos/1.0' },
    });
    expect(session.json().data).toMatchObject({
      status: 'active',
      auth_method: 'password',
      device: { id: 'pos-1', name: 'Front counter', fingerprint: null },
      ip_address: '127.0.0.1',
    });
  });

  it('rejects malformed login bodies with one detail per bad field', async () => {
    const response = await login({ email: 'not-an-email', password: '', extra: true });
    expect(response.statusCode).toBe(400);
    const fields = response
      .json()
      .error.details.map((d: { field: string }) => d.field)
      .sort();
    expect(fields).toEqual(['body.email', 'body.extra', 'body.password']);
  });

  describe('staff PIN', () => {
    it('accepts a username or an email as identifier, and the aliases email and code', async () => {
      for (const payload of [
        { identifier: 'ada', pin: '123456' },
        { identifier: 'ada@acme.test', pin: '123456' },
        { email: 'ada', code: '123456' },
      ]) {
        const response = await pinLogin(payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(200);
        expect(response.json().status.type).toBe('success');
      }
    });

    it('insists on exactly six digits', async () => {
      for (const pin of ['12345', '1234567', '12a456']) {
        const response = await pinLogin({ identifier: 'ada', pin });
        expect(response.statusCode).toBe(400);
        expect(response.json().error.details).toEqual([
          { field: 'body.pin', message: 'must match pattern "^[0-9]{6}$"' },
        ]);
      }
      const missing = await pinLogin({ identifier: 'ada' });
      expect(missing.json().error.details).toEqual([
        { field: 'body.pin', message: 'is required (or its alias code)' },
      ]);
      const conflicting = await pinLogin({ identifier: 'ada', email: 'bob', pin: '123456' });
      expect(conflicting.json().error.details[0].field).toBe('body.email');
    });

    it('refuses a wrong PIN like a wrong password', async () => {
      const response = await pinLogin({ identifier: 'ada', pin: '654321' });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('INVALID_CREDENTIALS');
    });

    it('ties the session to a location, which must belong to the tenant', async () => {
      const response = await pinLogin({
        identifier: 'ada',
        pin: '123456',
        location_id: acme.location.id,
        device_fingerprint: 'fp-1',
      });
      const session = await cloud.app.inject({
        url: '/v1/auth/session',
        headers: bearer(response.json().status.access_token),
      });
      expect(session.json().data).toMatchObject({
        auth_method: 'pin',
        location_id: acme.location.id,
        device: { fingerprint: 'fp-1' },
      });

      const foreign = await pinLogin({ identifier: 'ada', pin: '123456', location_id: globex.location.id });
      expect(foreign.statusCode).toBe(400);
      expect(foreign.json().error.details).toEqual([
        { field: 'body.location_id', message: 'is not a location of this tenant' },
      ]);
    });

    it('lets the location choose the tenant of a user in several', async () => {
      await cloud.services.tenancy.addUser(
        globex.tenant.id,
        { email: 'ada@acme.test', roles: ['manager'] },
        { trusted: true },
      );
      const response = await pinLogin({ identifier: 'ada', pin: '123456', location_id: globex.location.id });
      expect(response.json().status.user.tenant_id).toBe(globex.tenant.id);
      const unknownLocation = await pinLogin({
        identifier: 'ada',
        pin: '123456',
        location_id: '01900000-0000-7000-8000-000000000000',
      });
      expect(unknownLocation.statusCode).toBe(400);
      expect(unknownLocation.json().error.details[0].field).toBe('body.location_id');
    });
  });
});
