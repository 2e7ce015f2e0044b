import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { buildApplianceApp, createApplianceServices } from '../../appliance/app.ts';
import { loadApplianceConfig } from '../../appliance/config.ts';
import { openApplianceDb } from '../../appliance/db/index.ts';
import { type Clock, createManualClock } from '../../shared/clock.ts';
import { createSecretHasher } from '../../shared/identity/secrets.ts';
import { newId } from '../../shared/ids.ts';

export const TENANT = '01900000-0000-7000-8000-0000000000a1';
export const LOCATION = '01900000-0000-7000-8000-0000000000c3';
/** Ann, a manager, and Bob, a cashier: both signed in by PIN 123456. */
export const MANAGER = '01900000-0000-7000-8000-000000000001';
export const CASHIER = '01900000-0000-7000-8000-000000000002';

const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A real appliance app on a fresh SQLite file in New York time, with a manager and a cashier
 * signed in; the events table starts empty so a test sees only its own. Its camera pipelines are
 * built but not started (`app.vision.start()`).
 */
export async function createTestAppliance(options: { clock?: Clock; env?: Record<string, string> } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'appliance-routes-'));
  const db = openApplianceDb(dir);
  const config = {
    ...loadApplianceConfig({
      TENANT_ID: TENANT,
      LOCATION_ID: LOCATION,
      APPLIANCE_TIMEZONE: 'America/New_York',
      APPLIANCE_DATA_DIR: dir,
      ...options.env,
    }),
    logLevel: 'silent' as const,
  };
  const deps = { db, clock: options.clock ?? createManualClock('2026-06-10T19:00:00.000Z'), newId, hasher };
  const services = createApplianceServices(config, deps);
  const app = await buildApplianceApp(config, deps, services);

  const login = async (identifier: string) => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/auth/login/pin',
      payload: { identifier, pin: '123456' },
    });
    expect(response.statusCode).toBe(200);
    return response.json().status.access_token as string;
  };
  const staff = { pin: '123456', version: 1 };
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
  const manager = await login('ann');
  const cashier = await login('bob');
  db.exec('delete from events');

  return {
    dir,
    db,
    app,
    services,
    manager,
    cashier,
    login,
    /** A request under /v1/commerce, with the token when one is given. */
    call: (token: string | undefined, method: Method, url: string, payload?: object) =>
      app.inject({
        method,
        url: `/v1/commerce${url}`,
        ...(payload ? { payload } : {}),
        headers: token ? { authorization: `Bearer ${token}` } : {},
      }),
    events: () =>
      (
        db.prepare('select type, data from events order by seq').all() as Array<{
          type: string;
          data: string;
        }>
      ).map((row) => ({ type: row.type, data: JSON.parse(row.data) })),
    async close() {
      await app.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type TestAppliance = Awaited<ReturnType<typeof createTestAppliance>>;
