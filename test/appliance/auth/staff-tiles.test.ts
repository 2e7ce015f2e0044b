import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CASHIER, createTestAppliance, MANAGER, type TestAppliance } from '../../support/appliance.ts';

const CHLOE = '01900000-0000-7000-8000-000000000003';
const DAN = '01900000-0000-7000-8000-000000000004';
const EVE = '01900000-0000-7000-8000-000000000005';
const FAY = '01900000-0000-7000-8000-000000000006';
const OTHER_TENANT = '01900000-0000-7000-8000-0000000000b2';

describe('GET /v1/auth/staff', () => {
  let t: TestAppliance;
  const tiles = (url = '/v1/auth/staff') => t.app.inject({ method: 'GET', url });

  beforeEach(async () => {
    t = await createTestAppliance();
    const staff = { roles: ['staff'], version: 1 };
    // No username: signs in by email. Two words: two initials.
    await t.services.auth.upsertStaff({
      ...staff,
      id: CHLOE,
      email: 'Chloe@Acme.test',
      displayName: 'chloé de la Cruz',
      pin: '222222',
    });
    await t.services.auth.upsertStaff({ ...staff, id: DAN, email: 'dan@acme.test', displayName: 'Dan' });
    await t.services.auth.upsertStaff({
      ...staff,
      id: EVE,
      email: 'eve@acme.test',
      username: 'eve',
      displayName: 'Eve',
      pin: '333333',
      status: 'disabled',
    });
    await t.services.auth.upsertStaff({
      ...staff,
      id: FAY,
      tenantId: OTHER_TENANT,
      email: 'fay@other.test',
      username: 'fay',
      displayName: 'Fay',
      pin: '444444',
    });
  });
  afterEach(() => t.close());

  it('lists the active staff who have a PIN, by name, with what PIN login takes', async () => {
    const response = await tiles();
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual({
      items: [
        { id: MANAGER, display_name: 'Ann', identifier: 'ann', initials: 'A' },
        { id: CASHIER, display_name: 'Bob', identifier: 'bob', initials: 'B' },
        { id: CHLOE, display_name: 'chloé de la Cruz', identifier: 'chloe@acme.test', initials: 'CC' },
      ],
    });

    // Each identifier signs its staff member in.
    const login = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login/pin',
      payload: { identifier: 'chloe@acme.test', pin: '222222' },
    });
    expect(login.json().status.user.id).toBe(CHLOE);
  });

  it('needs no token, and shows nothing else of a staff member', async () => {
    const response = await tiles();
    expect(response.statusCode).toBe(200);
    const body = response.body;
    for (const secret of [
      'pin_hash',
      'argon2',
      'roles',
      'manager',
      'ann@acme.test',
      'bob@acme.test',
      'email',
    ])
      expect(body).not.toContain(secret);
  });

  it('refuses query parameters it does not take', async () => {
    const response = await tiles('/v1/auth/staff?status=all');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: [{ field: 'querystring.status', message: 'is not an accepted field' }],
    });
  });
});
