import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApplianceServices,
  buildApplianceApp,
  createApplianceServices,
} from '../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createSecretHasher } from '../../../cloud/identity/secrets.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const LOCATION = '01900000-0000-7000-8000-0000000000c3';
const MANAGER = '01900000-0000-7000-8000-000000000001';
const CASHIER = '01900000-0000-7000-8000-000000000002';
const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

describe('timeclock routes', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let app: FastifyInstance;
  let services: ApplianceServices;
  let manager: string;
  let cashier: string;
  const clock = createManualClock('2026-06-10T13:00:00.000Z');

  const call = (token: string | undefined, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    app.inject({
      method,
      url: `/v1/commerce${url}`,
      ...(payload ? { payload } : {}),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const login = async (identifier: string) => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/auth/login/pin',
      payload: { identifier, pin: '123456' },
    });
    expect(response.statusCode).toBe(200);
    return response.json().status.access_token as string;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'timeclock-routes-'));
    db = openApplianceDb(dir);
    const config = {
      ...loadApplianceConfig({
        TENANT_ID: TENANT,
        LOCATION_ID: LOCATION,
        APPLIANCE_TIMEZONE: 'America/New_York',
      }),
      logLevel: 'silent' as const,
    };
    const deps = { db, clock: clock, newId, hasher };
    services = createApplianceServices(config, deps);
    app = await buildApplianceApp(config, deps, services);
    clock.set('2026-06-10T13:00:00.000Z');
    const staff = { email: '', pin: '123456', version: 1 };
    await services.auth.upsertStaff({
      ...staff,
      id: MANAGER,
      email: 'ann@acme.test',
      username: 'ann',
      displayName: 'Ann',
      roles: ['manager'],
    });
    await services.auth.upsertStaff({
      ...staff,
      id: CASHIER,
      email: 'bob@acme.test',
      username: 'bob',
      displayName: 'Bob',
      roles: ['staff'],
    });
    manager = await login('ann');
    cashier = await login('bob');
    db.exec('delete from events');
  });
  afterEach(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const punch = (token: string, kind: string) => call(token, 'POST', '/timeclock/punches', { kind });
  const hour = 60 * 60 * 1000;

  it('runs a shift over HTTP for the signed-in staff member', async () => {
    for (const kind of ['clock_in', 'break_start', 'break_end', 'clock_out']) {
      const response = await punch(cashier, kind);
      expect(response.statusCode).toBe(201);
      expect(response.json().data).toMatchObject({ staff_id: CASHIER, kind });
      clock.advance(2 * hour);
    }
    const me = await call(cashier, 'GET', '/timeclock/me');
    expect(me.statusCode).toBe(200);
    expect(me.json().data.state).toBe('off');
    expect(me.json().data.punches.map((p: { kind: string }) => p.kind)).toEqual([
      'clock_in',
      'break_start',
      'break_end',
      'clock_out',
    ]);
    expect((await call(manager, 'GET', '/timeclock/me')).json().data).toEqual({ state: 'off', punches: [] });
  });

  it('refuses an impossible punch', async () => {
    const response = await punch(cashier, 'clock_out');
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('PUNCH_NOT_ALLOWED');
    expect((await punch(cashier, 'lunch')).statusCode).toBe(400);
    expect((await call(undefined, 'GET', '/timeclock/me')).statusCode).toBe(401);
  });

  it('lets a manager, not staff, correct a punch', async () => {
    const punchId = (await punch(cashier, 'clock_in')).json().data.id as string;
    const correction = { at: '2026-06-10T12:45:00.000Z', reason: 'forgot to clock in' };
    const url = `/timeclock/punches/${punchId}/correct`;
    expect((await call(cashier, 'POST', url, correction)).statusCode).toBe(403);
    const corrected = await call(manager, 'POST', url, correction);
    expect(corrected.statusCode).toBe(201);
    expect(corrected.json().data).toMatchObject({
      staff_id: CASHIER,
      kind: 'clock_in',
      at: correction.at,
      replaces: punchId,
      corrected_by: MANAGER,
      reason: 'forgot to clock in',
    });
    const me = (await call(cashier, 'GET', '/timeclock/me')).json().data;
    expect(me).toMatchObject({ state: 'working', punches: [{ at: correction.at }] });
    expect(me.punches).toHaveLength(1);
    const unknown = '01900000-0000-7000-8000-0000000000ff';
    expect(
      (await call(manager, 'POST', `/timeclock/punches/${unknown}/correct`, correction)).statusCode,
    ).toBe(404);
  });
});
