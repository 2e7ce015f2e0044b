import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/ids.ts';
import { CAMERA_DEFAULTS, DRIVE_THRU_DEFAULTS, EDGE_DEFAULTS } from '../../../shared/vision/settings.ts';
import { backends } from '../../support/stores.ts';
import { deviceKey } from '../devices/device-client.ts';
import {
  cameraState,
  expectError,
  expectOk,
  storePusher,
  type VisionCloud,
  visionCloud,
} from './vision-cloud.ts';

let storeSeq = 0;

describe.each(backends)('vision settings and calibration through the fleet on %s', (backend) => {
  let context: VisionCloud;
  let pushA: ReturnType<typeof storePusher>;
  let pushA2: ReturnType<typeof storePusher>;
  beforeAll(async () => {
    context = await visionCloud(backend);
    pushA = storePusher(context.cloud, context.storeA.credential);
    pushA2 = storePusher(context.cloud, context.storeA2.credential);
  });
  afterAll(() => context.cloud.close());

  const cameraId = () => `cam-${newId()}`;

  /**
   * A store of Alpha's with its appliance enrolled through MDM, for a test that sends the store's
   * drive-thru or the appliance's settings: these start at the defaults, and what one test sends
   * stays out of another's.
   */
  async function managedStore() {
    const { cloud, a } = context;
    const n = ++storeSeq;
    const location = await cloud.services.tenancy.createLocation(a.tenant.id, {
      name: `Managed store ${n}`,
      brand_id: a.brand.id,
      region_id: a.region.id,
    });
    const registered = await cloud.services.devices.register(a.tenant.id, {
      location_id: location.id,
      device_type: 'appliance',
      name: `Appliance M${n}`,
      serial_number: `APL-M${n}`,
    });
    const issued = await cloud.services.devices.enrol({
      enrollment_token: registered.enrollment_token,
      csr: (await deviceKey()).csr,
    });
    return { id: registered.id, location, push: storePusher(cloud, issued.sync_credential!) };
  }

  /** The registry's command row, as the fleet link will read it. */
  const commandRow = (id: string) =>
    context.cloud.store.db
      .selectFrom('device_commands')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('shows a camera’s synced settings, and a change sent until the store’s settings show it', async () => {
    const { cloud, a, storeA } = context;
    const camera = cameraId();
    await pushA([['vision_camera_states', cameraState(cloud, camera)]]);
    const url = `/v1/vision/cameras/${camera}/settings`;
    const synced = { ...CAMERA_DEFAULTS, resolution: '1080p', model_variant: 'vehicles' };
    expect(expectOk(await context.staffA('GET', url))).toEqual({
      camera_id: camera,
      location_id: a.location.id,
      settings: synced,
      synced_at: cameraState(cloud, camera).updated_at,
      pending: null,
    });

    const body = { min_confidence: 0.7, inference_fps: 10, inference_resolution: '960x540' };
    const accepted = expectOk(await context.managerA('PUT', url, body), 202);
    const expected = { ...CAMERA_DEFAULTS, ...body };
    expect(accepted).toEqual({
      command_id: expect.any(String),
      status: 'pending',
      expires_at: expect.any(String),
      camera_id: camera,
      location_id: a.location.id,
      settings: expected,
    });
    const row = await commandRow(accepted.command_id);
    expect(row).toMatchObject({
      tenant_id: a.tenant.id,
      device_id: storeA.id,
      kind: 'settings',
      state: 'queued',
    });
    expect(JSON.parse(row.payload)).toEqual({ cameras: { [camera]: body } });
    expect(Date.parse(row.expires_at) - cloud.clock.now().getTime()).toBe(86_400_000);

    const waiting = expectOk(await context.staffA('GET', url));
    expect(waiting.settings).toEqual(synced);
    expect(waiting.pending).toEqual({
      settings: expected,
      requested: body,
      command_id: accepted.command_id,
      command_state: 'queued',
      requested_at: cloud.clock.now().toISOString(),
      requested_by: expect.any(String),
    });

    // The store applied it: its next camera state carries the settings, and nothing is awaited.
    await pushA([['vision_camera_states', cameraState(cloud, camera, { settings: expected })]]);
    const done = expectOk(await context.staffA('GET', url));
    expect(done.settings).toEqual(expected);
    expect(done.pending).toBeNull();
    const awaited = await cloud.store.db
      .selectFrom('vision_desired_settings')
      .selectAll()
      .where('target', '=', camera)
      .execute();
    expect(awaited).toEqual([]);
  });

  it('checks every setting as the store does', async () => {
    const { cloud } = context;
    const camera = cameraId();
    await pushA([['vision_camera_states', cameraState(cloud, camera)]]);
    const url = `/v1/vision/cameras/${camera}/settings`;
    const invalid = [
      [{ min_confidence: 1.5 }, 'body.min_confidence'],
      [{ iou_threshold: -0.1 }, 'body.iou_threshold'],
      [{ inference_fps: 0 }, 'body.inference_fps'],
      [{ inference_resolution: '1280' }, 'body.inference_resolution'],
      [{ resolution: 'huge' }, 'body.resolution'],
      [{ bitrate: 1.5 }, 'body.bitrate'],
      [{ model_variant: '' }, 'body.model_variant'],
      [{ zoom: 2 }, 'body.zoom'],
    ] as const;
    for (const [body, field] of invalid) {
      const error = expectError(await context.managerA('PUT', url, body), 400, 'INVALID_REQUEST');
      expect(
        error.details.map((d) => d.field),
        field,
      ).toEqual([field]);
    }
    expectError(await context.staffA('PUT', url, { min_confidence: 0.9 }), 403, 'FORBIDDEN');
    expectError(await context.staffA('POST', `/v1/vision/cameras/${camera}/calibrate`), 403, 'FORBIDDEN');
    expectError(
      await context.managerA('PUT', `/v1/vision/cameras/${cameraId()}/settings`, {}),
      404,
      'CAMERA_NOT_FOUND',
    );
  });

  it('queues a calibration for the store’s appliance', async () => {
    const { cloud, a, storeA } = context;
    const camera = cameraId();
    await pushA([['vision_camera_states', cameraState(cloud, camera)]]);
    const accepted = expectOk(await context.adminA('POST', `/v1/vision/cameras/${camera}/calibrate`), 202);
    expect(accepted).toEqual({
      command_id: expect.any(String),
      status: 'pending',
      expires_at: new Date(cloud.clock.now().getTime() + 3_600_000).toISOString(),
      camera_id: camera,
      location_id: a.location.id,
    });
    const row = await commandRow(accepted.command_id);
    expect(row).toMatchObject({ device_id: storeA.id, kind: 'calibrate', state: 'queued' });
    expect(JSON.parse(row.payload)).toEqual({ camera_id: camera });
    // The fleet link finds it due, for the appliance itself.
    const due = await cloud.services.devices.dueCommands(100);
    expect(due.find((c) => c.id === accepted.command_id)).toMatchObject({
      location_id: a.location.id,
      device_type: 'appliance',
    });
  });

  it('answers 409 when the store’s appliance is not an enrolled MDM device', async () => {
    const { cloud, a2, storeA2 } = context;
    const camera = cameraId();
    await pushA2([['vision_camera_states', cameraState(cloud, camera)]]);
    const before = await cloud.store.db.selectFrom('device_commands').select('id').execute();
    expectError(
      await context.managerA('PUT', `/v1/vision/cameras/${camera}/settings`, { min_confidence: 0.6 }),
      409,
      'EDGE_NOT_MANAGED',
    );
    expectError(
      await context.managerA('POST', `/v1/vision/cameras/${camera}/calibrate`),
      409,
      'EDGE_NOT_MANAGED',
    );
    expectError(
      await context.managerA('PUT', `/v1/vision/drive-thru/settings?location_id=${a2.id}`, {
        min_track_length: 3,
      }),
      409,
      'EDGE_NOT_MANAGED',
    );
    const edge = expectOk(await context.staffA('GET', `/v1/vision/edge/${storeA2.id}/settings`));
    expect(edge).toEqual({
      edge_id: storeA2.id,
      location_id: a2.id,
      managed: false,
      settings: EDGE_DEFAULTS,
      confirmed_at: null,
      pending: null,
    });
    expectError(
      await context.managerA('PUT', `/v1/vision/edge/${storeA2.id}/settings`, { video_retention_days: 7 }),
      409,
      'EDGE_NOT_MANAGED',
    );
    expect(await cloud.store.db.selectFrom('device_commands').select('id').execute()).toHaveLength(
      before.length,
    );
  });

  it('sends a store’s drive-thru settings, and shows them once the appliance confirms', async () => {
    const { cloud, a } = context;
    const store = await managedStore();
    const url = `/v1/vision/drive-thru/settings?location_id=${store.location.id}`;
    expectError(await context.staffA('GET', '/v1/vision/drive-thru/settings'), 400, 'LOCATION_REQUIRED');
    expect(expectOk(await context.staffA('GET', url))).toEqual({
      location_id: store.location.id,
      settings: DRIVE_THRU_DEFAULTS,
      confirmed_at: null,
      pending: null,
    });

    const first = { track_timeout_seconds: 2, min_track_length: 5 };
    const accepted = expectOk(
      await context.managerA('PUT', '/v1/vision/drive-thru/settings', {
        ...first,
        location_id: store.location.id,
      }),
      202,
    );
    expect(accepted).toMatchObject({
      status: 'pending',
      location_id: store.location.id,
      settings: { ...DRIVE_THRU_DEFAULTS, ...first },
    });
    const row = await commandRow(accepted.command_id);
    expect(row).toMatchObject({ device_id: store.id, kind: 'settings' });
    expect(JSON.parse(row.payload)).toEqual({ drive_thru: first });
    expect(expectOk(await context.staffA('GET', url)).pending).toMatchObject({
      requested: first,
      command_state: 'queued',
    });

    // The appliance answers the fleet command: the settings are confirmed.
    await cloud.services.devices.updateCommand(a.tenant.id, accepted.command_id, { state: 'succeeded' });
    const confirmed = expectOk(await context.staffA('GET', url));
    expect(confirmed).toEqual({
      location_id: store.location.id,
      settings: { ...DRIVE_THRU_DEFAULTS, ...first },
      confirmed_at: expect.any(String),
      pending: null,
    });

    // A second change awaits beside what was confirmed; one that fails stays shown as failed.
    const second = { vehicle_min_size: 40 };
    const next = expectOk(await context.managerA('PUT', url, second), 202);
    await cloud.services.devices.updateCommand(a.tenant.id, next.command_id, { state: 'failed' });
    const failed = expectOk(await context.staffA('GET', url));
    expect(failed.settings).toEqual({ ...DRIVE_THRU_DEFAULTS, ...first });
    expect(failed.pending).toMatchObject({
      settings: { ...DRIVE_THRU_DEFAULTS, ...second },
      command_state: 'failed',
    });

    expectError(
      await context.managerA('PUT', url, { ...second, location_id: context.a2.id }),
      400,
      'INVALID_REQUEST',
    );
    expectError(await context.managerA('PUT', url, { track_timeout_seconds: 0 }), 400, 'INVALID_REQUEST');
    expectError(await context.managerA('PUT', url, { lanes: 2 }), 400, 'INVALID_REQUEST');
    expectError(
      await context.managerA('PUT', '/v1/vision/drive-thru/settings', { min_track_length: 3 }),
      400,
      'LOCATION_REQUIRED',
    );
    expectError(
      await context.managerA('PUT', `/v1/vision/drive-thru/settings?location_id=${newId()}`, {}),
      404,
      'LOCATION_NOT_FOUND',
    );
    expectError(await context.staffA('PUT', url, {}), 403, 'FORBIDDEN');
  });

  it('sends an edge device’s settings, refusing fewer streams than cameras enabled', async () => {
    const { cloud, a } = context;
    const store = await managedStore();
    // Two cameras enabled at the store: the limit on streams is checked against them.
    await store.push([
      ['vision_camera_states', cameraState(cloud, cameraId())],
      ['vision_camera_states', cameraState(cloud, cameraId())],
    ]);
    const url = `/v1/vision/edge/${store.id}/settings`;
    expect(expectOk(await context.staffA('GET', url))).toMatchObject({
      edge_id: store.id,
      location_id: store.location.id,
      managed: true,
      settings: EDGE_DEFAULTS,
      pending: null,
    });
    const body = { video_retention_days: 30, inference_batch_size: 8 };
    const accepted = expectOk(await context.adminA('PUT', url, body), 202);
    expect(accepted).toMatchObject({
      status: 'pending',
      edge_id: store.id,
      settings: { ...EDGE_DEFAULTS, ...body },
    });
    const row = await commandRow(accepted.command_id);
    expect(row).toMatchObject({ device_id: store.id, kind: 'settings', state: 'queued' });
    expect(JSON.parse(row.payload)).toEqual({ edge: body });
    expect(expectOk(await context.staffA('GET', url)).pending).toMatchObject({ requested: body });

    const enabled = (
      await cloud.services.vision.listCameras(
        { tenantId: a.tenant.id, userId: 'x', locationId: null },
        {
          location_id: store.location.id,
        },
      )
    ).filter((c) => c.enabled).length;
    expect(enabled).toBeGreaterThan(1);
    const error = expectError(
      await context.adminA('PUT', url, { max_concurrent_streams: 1 }),
      409,
      'CAMERA_STREAM_LIMIT',
    );
    expect(error.details).toEqual([
      { field: 'body.max_concurrent_streams', message: `is below the ${enabled} cameras enabled` },
    ]);
    expectError(await context.adminA('PUT', url, { max_concurrent_streams: 0 }), 400, 'INVALID_REQUEST');
    expectError(await context.adminA('PUT', url, { cameras: 2 }), 400, 'INVALID_REQUEST');
    expectError(await context.staffA('GET', `/v1/vision/edge/${newId()}/settings`), 404, 'EDGE_NOT_FOUND');
    expectError(
      await context.adminA('PUT', `/v1/vision/edge/${newId()}/settings`, {}),
      404,
      'EDGE_NOT_FOUND',
    );
  });

  it('records each change in the audit trail with its actor', async () => {
    const { cloud, a } = context;
    const store = await managedStore();
    const camera = cameraId();
    await store.push([['vision_camera_states', cameraState(cloud, camera)]]);
    const settings = `/v1/vision/cameras/${camera}/settings`;
    expectOk(await context.managerA('PUT', settings, { min_confidence: 0.6 }), 202);
    expectOk(await context.adminA('POST', `/v1/vision/cameras/${camera}/calibrate`), 202);
    expectOk(
      await context.adminA('PUT', `/v1/vision/edge/${store.id}/settings`, { video_retention_days: 7 }),
      202,
    );
    // Reads are not changes: they stay out of the trail.
    expectOk(await context.staffA('GET', settings));
    const events = await cloud.services.audit.list(a.tenant.id, { limit: 100 });
    const actions = events.map((event) => event.action);
    expect(actions).toContain('vision.put /v1/vision/cameras/:camera_id/settings');
    expect(actions).toContain('vision.post /v1/vision/cameras/:camera_id/calibrate');
    expect(actions).toContain('vision.put /v1/vision/edge/:edge_id/settings');
    expect(actions.filter((action) => action.startsWith('vision.get'))).toEqual([]);
  });

  it('documents every vision route with its roles in the OpenAPI document', async () => {
    const response = await context.cloud.app.inject({ url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const paths = response.json().paths as Record<string, Record<string, { description?: string }>>;
    const routes = [
      ['get', '/api/vision/cameras'],
      ['get', '/api/vision/drive-thru/status'],
      ['post', '/api/vision/verify-order'],
      ['get', '/api/vision/occupancy/{location_id}'],
      ['get', '/v1/vision/cameras/{camera_id}'],
      ['get', '/v1/vision/cameras/{camera_id}/settings'],
      ['put', '/v1/vision/cameras/{camera_id}/settings'],
      ['get', '/v1/vision/cameras/{camera_id}/detections'],
      ['post', '/v1/vision/cameras/{camera_id}/calibrate'],
      ['get', '/v1/vision/models/{model_id}/metrics'],
      ['get', '/v1/vision/drive-thru/status'],
      ['get', '/v1/vision/drive-thru/tracks'],
      ['get', '/v1/vision/drive-thru/settings'],
      ['put', '/v1/vision/drive-thru/settings'],
      ['get', '/v1/vision/edge/{edge_id}/settings'],
      ['put', '/v1/vision/edge/{edge_id}/settings'],
    ] as const;
    for (const [method, path] of routes)
      expect(paths[path]?.[method]?.description, path).toMatch(/Roles: manager/);
    expect(paths['/v1/vision/cameras/{camera_id}/settings']!.put!.description).not.toMatch(/staff/);
    expect(paths['/api/vision/cameras']!.get!.description).toMatch(/staff/);
  });
});
