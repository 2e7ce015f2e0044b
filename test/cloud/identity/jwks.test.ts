import { createPublicKey, verify } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';

interface Jwk {
  kid: string;
  kty: string;
  crv: string;
  x: string;
  y: string;
}

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** Verifies an ES256 JWT with node:crypto alone, the way a third party would. */
function verifyWithNodeCrypto(token: string, keys: Jwk[]) {
  const [headerPart, payloadPart, signaturePart] = token.split('.') as [string, string, string];
  const header = decode(headerPart);
  const jwk = keys.find((key) => key.kid === header.kid);
  if (!jwk || header.alg !== 'ES256') return false;
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, format: 'jwk' });
  return verify(
    'sha256',
    Buffer.from(`${headerPart}.${payloadPart}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signaturePart, 'base64url'),
  );
}

describe('published keys', () => {
  let cloud: TestCloud;
  const credentials = { email: 'ada@acme.test', password: 'ada-password' };

  beforeEach(async () => {
    cloud = await createTestCloud();
    const { tenant } = await seedTenant(cloud.services, 'acme');
    await cloud.services.tenancy.addUser(tenant.id, { ...credentials, roles: ['manager'] });
  });
  afterEach(() => cloud.close());

  const jwks = async (url = '/.well-known/jwks.json') =>
    (await cloud.app.inject({ url })).json().keys as Jwk[];

  it('serves the same key set at both paths, public parts only', async () => {
    const wellKnown = await jwks();
    expect(await jwks('/v1/auth/jwks')).toEqual(wellKnown);
    expect(wellKnown).toHaveLength(1);
    expect(wellKnown[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(wellKnown[0]).not.toHaveProperty('d');
  });

  it('issues tokens a third party verifies with node:crypto and the JWKS alone', async () => {
    const { access_token, refresh_token } = await loginTokens(cloud.app, credentials);
    const keys = await jwks();
    expect(verifyWithNodeCrypto(access_token, keys)).toBe(true);
    expect(verifyWithNodeCrypto(refresh_token, keys)).toBe(true);
    const tampered = `${access_token.slice(0, -4)}AAAA`;
    expect(verifyWithNodeCrypto(tampered, keys)).toBe(false);
  });

  it('rotates keys and keeps a retired key published until its last token has expired', async () => {
    const before = await loginTokens(cloud.app, credentials);
    const oldKid = decode(before.access_token.split('.')[0]!).kid;
    const newKid = await cloud.services.identity.keys.rotate();
    const after = await loginTokens(cloud.app, credentials);
    expect(decode(after.access_token.split('.')[0]!).kid).toBe(newKid);

    const keys = await jwks();
    expect(keys.map((k) => k.kid).sort()).toEqual([oldKid, newKid].sort());
    expect(verifyWithNodeCrypto(before.access_token, keys)).toBe(true);
    expect(
      (await cloud.app.inject({ url: '/v1/auth/me', headers: bearer(before.access_token) })).statusCode,
    ).toBe(200);

    // The old key signed refresh tokens too, which live 30 days: it is published that long.
    cloud.clock.advance(29 * 86_400_000);
    expect((await jwks()).map((k) => k.kid)).toContain(oldKid);
    cloud.clock.advance(2 * 86_400_000);
    await cloud.services.identity.keys.prune();
    expect((await jwks()).map((k) => k.kid)).toEqual([newKid]);
  });

  it('rotates on schedule only when the active key has served its time', async () => {
    expect(await cloud.services.identity.keys.rotateIfDue()).toBeUndefined();
    cloud.clock.advance(cloud.config.keyRotationSeconds * 1000);
    expect(await cloud.services.identity.keys.rotateIfDue()).toEqual(expect.any(String));
  });
});
