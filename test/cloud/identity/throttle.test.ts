import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestCloud, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';

describe('failed logins slow down, then lock', () => {
  let cloud: TestCloud;
  let tenantId: string;
  const login = (password: string, email = 'ada@acme.test') =>
    cloud.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password } });

  beforeEach(async () => {
    cloud = await createTestCloud();
    ({
      tenant: { id: tenantId },
    } = await seedTenant(cloud.services, 'acme'));
    await cloud.services.tenancy.addUser(tenantId, {
      email: 'ada@acme.test',
      password: 'ada-password',
      roles: ['manager'],
    });
  });
  afterEach(() => cloud.close());

  it('makes the account wait after three failures, then locks it after ten', async () => {
    for (let i = 0; i < 3; i++) expect((await login('wrong')).statusCode).toBe(401);
    await login('wrong');
    const waiting = await login('ada-password');
    expect(waiting.statusCode).toBe(429);
    expect(waiting.json().error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(waiting.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    for (let failures = 4; failures < 10; failures++) {
      cloud.clock.advance(61_000);
      await login('wrong');
    }
    cloud.clock.advance(61_000);
    const locked = await login('ada-password');
    expect(locked.statusCode).toBe(423);
    expect(locked.json().error).toMatchObject({
      code: 'ACCOUNT_LOCKED',
      message: expect.stringContaining('locked'),
    });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);

    const audit = await cloud.services.audit.listAll(50);
    expect(audit.filter((e) => e.action === 'auth.account_locked')).toHaveLength(1);
    expect(audit.filter((e) => e.action === 'auth.login_password' && e.outcome === 'failure')).toHaveLength(
      10,
    );

    cloud.clock.advance(15 * 60_000);
    expect((await login('ada-password')).statusCode).toBe(200);
    // Success clears the account's count: one more mistake is not punished.
    expect((await login('wrong')).statusCode).toBe(401);
    expect((await login('ada-password')).statusCode).toBe(200);
  });

  it('throttles a client address guessing across accounts', async () => {
    await cloud.close();
    const tight = { slowAfter: 3, lockAfter: 5, lockMs: 60_000, forgetAfterMs: 60_000, maxDelayMs: 1000 };
    cloud = await createTestCloud('sqlite', {
      throttle: { account: { ...tight, slowAfter: 100, lockAfter: 100 }, address: tight },
    });
    for (let i = 0; i < 5; i++) {
      await login('x', `nobody${i}@acme.test`);
      cloud.clock.advance(1_001);
    }
    const refused = await login('x', 'someone@acme.test');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('TOO_MANY_ATTEMPTS');
    expect((await cloud.services.audit.listAll(20)).some((e) => e.action === 'auth.address_locked')).toBe(
      true,
    );
  });
});

describe.each(backends)('parallel guesses on %s', (backend) => {
  let cloud: TestCloud;
  afterEach(() => cloud.close());

  it('counts every attempt before checking it, so a burst cannot slip past the slow-down', async () => {
    cloud = await createTestCloud(backend);
    const { tenant } = await seedTenant(cloud.services, 'acme');
    await cloud.services.tenancy.addUser(tenant.id, {
      email: 'ada@acme.test',
      password: 'ada-password',
      roles: [],
    });
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        cloud.app.inject({
          method: 'POST',
          url: '/v1/auth/login',
          payload: { email: 'ada@acme.test', password: `guess-${i}` },
        }),
      ),
    );
    const verified = burst.filter((r) => r.statusCode === 401).length;
    const refused = burst.filter((r) => r.statusCode === 429).length;
    // Three attempts run free, the fourth sets the first wait: every later one is refused unchecked.
    expect(verified).toBe(4);
    expect(refused).toBe(16);
    const failures = (await cloud.services.audit.listAll(50)).filter(
      (e) => e.action === 'auth.login_password',
    );
    expect(failures).toHaveLength(4);
  });
});
