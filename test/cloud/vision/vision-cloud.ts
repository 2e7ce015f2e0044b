import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import type { Change } from '../../../shared/sync/protocol.ts';
import { SYNC_TABLES, type SyncTableName } from '../../../shared/sync/registry.ts';
import { CAMERA_DEFAULTS } from '../../../shared/vision/settings.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { deviceKey } from '../devices/device-client.ts';

export { expectError, expectOk } from '../devices/device-client.ts';

const PASSWORD = 'correct-horse-battery';

type Method = 'GET' | 'POST' | 'PUT';
export type Call = (method: Method, path: string, payload?: unknown) => Promise<LightMyRequestResponse>;

const callerOf =
  (cloud: TestCloud, token?: string): Call =>
  (method, url, payload) =>
    cloud.app.inject({
      method,
      url,
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
      headers: token ? bearer(token) : {},
    });

async function member(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  await cloud.services.tenancy.addUser(tenantId, { email, password: PASSWORD, roles });
  return callerOf(cloud, (await loginTokens(cloud.app, { email, password: PASSWORD })).access_token);
}

/** A store appliance enrolled through MDM: a registry device whose sync credential shares its id. */
async function enrolledAppliance(cloud: TestCloud, tenantId: string, locationId: string, serial: string) {
  const devices = cloud.services.devices;
  const registered = await devices.register(tenantId, {
    location_id: locationId,
    device_type: 'appliance',
    name: `Appliance ${serial}`,
    serial_number: serial,
  });
  const issued = await devices.enrol({
    enrollment_token: registered.enrollment_token,
    csr: (await deviceKey()).csr,
  });
  return { id: registered.id, credential: issued.sync_credential! };
}

/**
 * Two tenants. Alpha has two stores: store 1's appliance is enrolled through MDM (the cloud can
 * command it), store 2's only syncs. Bravo's one store has an enrolled appliance.
 */
export async function visionCloud(backend: 'sqlite' | 'pg') {
  const cloud = await createTestCloud(backend, { config: { rateLimit: false } });
  const a = await seedTenant(cloud.services, 'alpha');
  const b = await seedTenant(cloud.services, 'bravo');
  const a2 = await cloud.services.tenancy.createLocation(a.tenant.id, {
    name: 'Store 2',
    brand_id: a.brand.id,
    region_id: a.region.id,
  });
  const storeA2 = await cloud.services.sync.provisionAppliance(a.tenant.id, {
    location_id: a2.id,
    name: 'A2',
  });
  return {
    cloud,
    a,
    b,
    a2,
    storeA: await enrolledAppliance(cloud, a.tenant.id, a.location.id, 'APL-A1'),
    storeA2: { id: storeA2.id, credential: storeA2.credential },
    storeB: await enrolledAppliance(cloud, b.tenant.id, b.location.id, 'APL-B1'),
    adminA: await member(cloud, a.tenant.id, 'admin@alpha.test', ['tenant_admin']),
    managerA: await member(cloud, a.tenant.id, 'manager@alpha.test', ['manager']),
    staffA: await member(cloud, a.tenant.id, 'staff@alpha.test', ['staff']),
    financeA: await member(cloud, a.tenant.id, 'finance@alpha.test', ['finance']),
    adminB: await member(cloud, b.tenant.id, 'admin@bravo.test', ['tenant_admin']),
    managerB: await member(cloud, b.tenant.id, 'manager@bravo.test', ['manager']),
    anonymous: callerOf(cloud),
    /** A staff member signed in by PIN at store 1: a session for that store only. */
    async staffAtStore1() {
      await cloud.services.tenancy.addUser(a.tenant.id, {
        email: 'pin@alpha.test',
        username: 'pinny',
        pin: '246810',
        roles: ['staff'],
      });
      const response = await cloud.app.inject({
        method: 'POST',
        url: '/v1/auth/login/pin',
        payload: { identifier: 'pinny', pin: '246810', tenant_slug: 'alpha', location_id: a.location.id },
      });
      expect(response.statusCode, response.body).toBe(200);
      return callerOf(cloud, response.json().status.access_token);
    },
  };
}

export type VisionCloud = Awaited<ReturnType<typeof visionCloud>>;

/**
 * A store's appliance pushing its vision rows through the real /v1/sync/push, as its outbox does:
 * JSON columns as JSON text, state rows at their next version.
 */
export function storePusher(cloud: TestCloud, credential: string) {
  const hlc = createHlc(`appliance-${credential.slice(4, 12)}`);
  const versions = new Map<string, number>();
  const encode = (table: SyncTableName, fields: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(fields).map(([column, value]) => [
        column,
        (SYNC_TABLES[table].columns as Record<string, string>)[column] === 'json' && typeof value !== 'string'
          ? JSON.stringify(value)
          : value,
      ]),
    );
  const change = (table: SyncTableName, fields: Record<string, unknown>): Change => {
    const rowId = String(fields[SYNC_TABLES[table].key]);
    const key = `${table}/${rowId}`;
    const version = (versions.get(key) ?? 0) + 1;
    versions.set(key, version);
    return {
      change_id: newId(),
      table,
      row_id: rowId,
      op: version === 1 ? 'insert' : 'update',
      base_version: version - 1,
      version,
      hlc: hlc.tick(),
      fields: encode(table, fields),
    };
  };
  return async function push(rows: ReadonlyArray<readonly [SyncTableName, Record<string, unknown>]>) {
    const response = await cloud.app.inject({
      method: 'POST',
      url: '/v1/sync/push',
      headers: { authorization: `Appliance ${credential}` },
      payload: { changes: rows.map(([table, fields]) => change(table, fields)), queue_depth: 0 },
    });
    expect(response.statusCode, response.body).toBe(200);
    const results = response.json().data.results as Array<{ status: string; reason?: string }>;
    for (const result of results) expect(result.status, JSON.stringify(result)).toBe('applied');
  };
}

export const ago = (cloud: TestCloud, ms: number) => new Date(cloud.clock.now().getTime() - ms).toISOString();

export const cameraState = (cloud: TestCloud, id: string, overrides: Record<string, unknown> = {}) => ({
  id,
  name: `Camera ${id.slice(0, 8)}`,
  type: 'drive_thru_lane',
  enabled: 1,
  status: 'online',
  fps: 14.8,
  last_detection: ago(cloud, 5_000),
  zones: [
    {
      name: 'menu_board',
      polygon: [
        [0, 0],
        [640, 0],
        [640, 360],
      ],
    },
  ],
  settings: { ...CAMERA_DEFAULTS, resolution: '1080p', model_variant: 'vehicles' },
  model: 'vehicles@1.0.0',
  updated_at: ago(cloud, 10_000),
  ...overrides,
});

export const laneState = (cloud: TestCloud, cameraId: string, overrides: Record<string, unknown> = {}) => ({
  camera_id: cameraId,
  queue_length: 2,
  estimated_wait_seconds: 95,
  orders_per_hour: 42.5,
  status: 'normal',
  cars: [
    { position: 1, wait_seconds: 61.2, track_id: 't-1', zone: 'pay_window' },
    { position: 2, wait_seconds: 20.4, track_id: 't-2', zone: 'menu_board' },
  ],
  counts: { completed: 30, pulled_forward: 2, balked: 1 },
  updated_at: ago(cloud, 15_000),
  ...overrides,
});

export const detection = (cameraId: string, at: string, overrides: Record<string, unknown> = {}) => ({
  id: newId(),
  camera_id: cameraId,
  track_id: newId(),
  name: 'car',
  confidence: 0.91,
  box: [10, 20, 200, 180],
  detected_at: at,
  snapshot: null,
  ...overrides,
});

export const track = (cameraId: string, leftAt: string, overrides: Record<string, unknown> = {}) => ({
  id: newId(),
  camera_id: cameraId,
  entered_at: new Date(Date.parse(leftAt) - 180_000).toISOString(),
  left_at: leftAt,
  outcome: 'served',
  order_id: null,
  pulled_forward: 0,
  times: { menu_board: 40, pay_window: 35, pickup_window: 60, pull_forward: null, total: 180 },
  events: [{ kind: 'entered', at: new Date(Date.parse(leftAt) - 180_000).toISOString() }],
  ...overrides,
});

export const minute = (
  cameraId: string,
  at: string,
  metrics: Record<string, unknown> = {},
  overrides: Record<string, unknown> = {},
) => ({
  id: newId(),
  camera_id: cameraId,
  model_id: 'vehicles',
  model_version: '1.0.0',
  minute: at,
  metrics: {
    frames_read: 900,
    frames_inferred: 600,
    frames_skipped_by_motion: 280,
    frames_dropped: 20,
    detections: 12,
    camera_fps: 15,
    detection_fps: 10,
    inference_ms: { p50: 40, p99: 120, mean: 45 },
    capture_to_result_ms: { p50: 60, p95: 90, p99: 150 },
    ...metrics,
  },
  ...overrides,
});
