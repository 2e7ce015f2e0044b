import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { totpCode } from '../../../cloud/identity/totp.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';

describe.each(backends)('TOTP MFA on %s', (backend) => {
  let cloud: TestCloud;
  let secret: string;
  let factorId: string;
  const credentials = { email: 'ada@acme.test', password: 'ada-password' };

  const post = (url: string, payload: Record<string, unknown>, token?: string) =>
    cloud.app.inject({ method: 'POST', url, payload, headers: token ? bearer(token) : {} });
  const code = (offsetMs = 0) => totpCode(secret, new Date(cloud.clock.now().getTime() + offsetMs));
  const nextStep = () => cloud.clock.advance(30_000);

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    const { tenant } = await seedTenant(cloud.services, 'acme');
    await cloud.services.tenancy.addUser(tenant.id, {
      ...credentials,
      pin: '246810',
      username: 'ada',
      roles: ['manager'],
    });
    const { access_token } = await loginTokens(cloud.app, credentials);
    const enrolled = await post('/v1/auth/mfa/factors', { label: 'Phone' }, access_token);
    expect(enrolled.statusCode).toBe(201);
    ({ secret, id: factorId } = enrolled.json().data);
    expect(enrolled.json().data).toMatchObject({
      enabled: false,
      factor_type: 'totp',
      otpauth_uri: expect.stringMatching(/^otpauth:\/\/totp\//),
    });
    // Until its first code confirms it, a factor does not guard logins.
    expect((await post('/v1/auth/login', credentials)).json().status.type).toBe('success');
    expect(
      (await post(`/v1/auth/mfa/factors/${factorId}/activate`, { code: code(-120_000) }, access_token)).json()
        .error.code,
    ).toBe('INVALID_MFA_CODE');
    const activated = await post(`/v1/auth/mfa/factors/${factorId}/activate`, { code: code() }, access_token);
    expect(activated.json().data).toMatchObject({ id: factorId, enabled: true });
    nextStep();
  });
  afterEach(() => cloud.close());

  async function challenge(url = '/v1/auth/login', payload: Record<string, unknown> = credentials) {
    const response = await post(url, payload);
    expect(response.statusCode).toBe(200);
    return response.json().status;
  }

  it('answers login with mfa_required, and a valid code with tokens', async () => {
    const status = await challenge();
    expect(status).toEqual({
      type: 'mfa_required',
      challenge_id: expect.any(String),
      challenge_code: expect.stringMatching(/^\d{6}$/),
      factors: [{ id: factorId, label: 'Phone', factor_type: 'totp', enabled: true }],
    });
    const verified = await post('/v1/auth/mfa/verify', { challenge_id: status.challenge_id, code: code() });
    expect(verified.statusCode).toBe(200);
    const tokens = verified.json().status;
    expect(tokens.type).toBe('success');
    const session = await cloud.app.inject({ url: '/v1/auth/session', headers: bearer(tokens.access_token) });
    expect(session.json().data).toMatchObject({ mfa_verified: true, auth_method: 'password' });
  });

  it('applies to PIN logins too', async () => {
    const status = await challenge('/v1/auth/login/pin', { identifier: 'ada', pin: '246810' });
    expect(status.type).toBe('mfa_required');
  });

  it('accepts a code one step early or late, but not two', async () => {
    nextStep();
    const status = await challenge();
    expect(
      (await post('/v1/auth/mfa/verify', { challenge_id: status.challenge_id, code: code(-60_000) })).json()
        .error.code,
    ).toBe('INVALID_MFA_CODE');
    expect(
      (await post('/v1/auth/mfa/verify', { challenge_id: status.challenge_id, code: code(-30_000) }))
        .statusCode,
    ).toBe(200);
  });

  it('refuses a wrong code, then a code already accepted', async () => {
    const first = await challenge();
    const wrong = await post('/v1/auth/mfa/verify', {
      challenge_id: first.challenge_id,
      code: code() === '000000' ? '111111' : '000000',
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('INVALID_MFA_CODE');
    const used = code();
    expect(
      (await post('/v1/auth/mfa/verify', { challenge_id: first.challenge_id, code: used })).statusCode,
    ).toBe(200);
    const second = await challenge();
    const replay = await post('/v1/auth/mfa/verify', { challenge_id: second.challenge_id, code: used });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().error.code).toBe('MFA_CODE_REUSED');
    nextStep();
    expect(
      (await post('/v1/auth/mfa/verify', { challenge_id: second.challenge_id, code: code() })).statusCode,
    ).toBe(200);
  });

  it('uses a challenge once, and not after it expires', async () => {
    const status = await challenge();
    expect(
      (await post('/v1/auth/mfa/verify', { challenge_id: status.challenge_id, code: code() })).statusCode,
    ).toBe(200);
    nextStep();
    const again = await post('/v1/auth/mfa/verify', { challenge_id: status.challenge_id, code: code() });
    expect(again.json().error.code).toBe('INVALID_CHALLENGE');

    const stale = await challenge();
    cloud.clock.advance(5 * 60_000 + 1);
    const expired = await post('/v1/auth/mfa/verify', { challenge_id: stale.challenge_id, code: code() });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('CHALLENGE_EXPIRED');
  });

  it('gives up on a challenge after five wrong codes', async () => {
    const status = await challenge();
    for (let i = 0; i < 5; i++) {
      await post('/v1/auth/mfa/verify', {
        challenge_id: status.challenge_id,
        code: code(-90_000 - i * 30_000),
      });
      cloud.clock.advance(61_000);
    }
    const after = await post('/v1/auth/mfa/verify', { challenge_id: status.challenge_id, code: code() });
    expect(after.json().error.code).toMatch(/INVALID_CHALLENGE|CHALLENGE_EXPIRED/);
  });

  it('removes an enabled factor only with a current code', async () => {
    const status = await challenge();
    const tokens = (
      await post('/v1/auth/mfa/verify', { challenge_id: status.challenge_id, code: code() })
    ).json().status;
    nextStep();
    const remove = (payload?: Record<string, unknown>) =>
      cloud.app.inject({
        method: 'DELETE',
        url: `/v1/auth/mfa/factors/${factorId}`,
        headers: bearer(tokens.access_token),
        ...(payload ? { payload } : {}),
      });
    expect((await remove()).statusCode).toBe(401);
    expect((await remove({ code: code() })).statusCode).toBe(204);
    expect(
      (await cloud.app.inject({ url: '/v1/auth/mfa/factors', headers: bearer(tokens.access_token) })).json()
        .data,
    ).toEqual([]);
    expect((await post('/v1/auth/login', credentials)).json().status.type).toBe('success');
  });
});
