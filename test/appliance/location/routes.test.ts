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
import { createManualClock } from '../../../shared/clock.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const LOCATION = '01900000-0000-7000-8000-0000000000c3';
const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

describe('location routes', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let app: FastifyInstance;
  let services: ApplianceServices;
  let manager: string;
  let cashier: string;

  const call = (token: string | undefined, method: 'GET' | 'PUT', url: string, payload?: object) =>
    app.inject({
      method,
      url: `/v1/commerce${url}`,
      ...(payload ? { payload } : {}),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const addStaff = async (id: string, username: string, roles: string[]) => {
    await services.auth.upsertStaff({
      id,
      email: `${username}@acme.test`,
      username,
      displayName: username,
      roles,
      pin: '123456',
      version: 1,
    });
    const response = await app.inject({
      method: 'POST',
      url: '/v1/auth/login/pin',
      payload: { identifier: username, pin: '123456' },
    });
    return response.json().status.access_token as string;
  };
  const eventTypes = () =>
    (db.prepare('select type from events order by seq').all() as Array<{ type: string }>).map((e) => e.type);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'location-routes-'));
    db = openApplianceDb(dir);
    const config = {
      ...loadApplianceConfig({
        TENANT_ID: TENANT,
        LOCATION_ID: LOCATION,
        APPLIANCE_TIMEZONE: 'Europe/Berlin',
        APPLIANCE_STORE_NAME: 'Main St',
      }),
      logLevel: 'silent' as const,
    };
    const deps = { db, clock: createManualClock('2026-06-10T19:00:00.000Z'), newId, hasher };
    services = createApplianceServices(config, deps);
    app = await buildApplianceApp(config, deps, services);
    manager = await addStaff('01900000-0000-7000-8000-000000000001', 'ann', ['manager']);
    cashier = await addStaff('01900000-0000-7000-8000-000000000002', 'bob', ['staff']);
    db.exec('delete from events');
  });
  afterEach(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the store as configured at start-up', async () => {
    const response = await call(cashier, 'GET', '/location');
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      location_id: LOCATION,
      name: 'Main St',
      timezone: 'Europe/Berlin',
      status: 'open',
    });
    expect((await call(undefined, 'GET', '/location')).statusCode).toBe(401);
  });

  it('lets a manager change the status and the hours, with their events', async () => {
    const closed = await call(manager, 'PUT', '/location/status', { status: 'temporarily_closed' });
    expect(closed.json().data).toMatchObject({ status: 'temporarily_closed', version: 2 });
    const hours = await call(manager, 'PUT', '/location/hours', {
      hours: { monday: [{ opens: '09:00', closes: '17:00' }] },
    });
    expect(hours.statusCode).toBe(200);
    expect(hours.json().data.hours).toMatchObject({
      monday: [{ opens: '09:00', closes: '17:00' }],
      sunday: [],
    });
    expect(eventTypes()).toEqual(['location.status_changed', 'location.hours_changed']);
  });

  it('refuses staff who are not managers, and bad bodies', async () => {
    expect((await call(cashier, 'PUT', '/location/status', { status: 'closed' })).statusCode).toBe(403);
    expect((await call(cashier, 'PUT', '/location/hours', { hours: {} })).statusCode).toBe(403);
    const status = await call(manager, 'PUT', '/location/status', { status: 'gone' });
    expect(status.statusCode).toBe(400);
    const day = await call(manager, 'PUT', '/location/hours', { hours: { funday: [] } });
    expect(day.statusCode).toBe(400);
    const time = await call(manager, 'PUT', '/location/hours', {
      hours: { monday: [{ opens: '25:00', closes: '17:00' }] },
    });
    expect(time.statusCode).toBe(400);
    expect(time.json().error.details[0].field).toBe('body.hours.monday.0.opens');
    expect(services.location.get().version).toBe(1);
  });
});
