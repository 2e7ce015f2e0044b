import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/ids.ts';
import { bearer, seedTenant, signedInUser } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import {
  ago,
  cameraState,
  detection,
  expectError,
  expectOk,
  laneState,
  minute,
  storePusher,
  track,
  type VisionCloud,
  visionCloud,
} from './vision-cloud.ts';

let tenantSeq = 0;

describe.each(backends)('vision across tenants on %s', (backend) => {
  let context: VisionCloud;
  let pushA: ReturnType<typeof storePusher>;
  beforeAll(async () => {
    context = await visionCloud(backend);
    // One pusher for store 1 throughout: it keeps the versions of the store's occupancy row.
    pushA = storePusher(context.cloud, context.storeA.credential);
  });
  afterAll(() => context.cloud.close());

  /**
   * Alpha's store syncs a camera for the test alone, with its lane, a detection, a track, a model
   * minute and an order's check, and the store's occupancy.
   */
  async function alphaCamera() {
    const { cloud, a } = context;
    const camera = `cam-${newId()}`;
    const orderId = newId();
    await pushA([
      ['vision_camera_states', cameraState(cloud, camera)],
      ['vision_lane_states', laneState(cloud, camera)],
      ['vision_detections', detection(camera, ago(cloud, 1000))],
      ['vision_tracks', track(camera, ago(cloud, 60_000))],
      ['vision_model_minutes', minute(camera, ago(cloud, 120_000), {}, { model_id: 'alpha-only' })],
      [
        'vision_verifications',
        {
          id: newId(),
          order_id: orderId,
          camera_id: camera,
          trigger: 'order_ready',
          verified: 1,
          detections: [],
          missing_items: [],
          extra_items: [],
          snapshot: null,
          created_at: ago(cloud, 5000),
        },
      ],
      [
        'vision_occupancy',
        {
          location_id: a.location.id,
          timestamp: ago(cloud, 1000),
          dining_room: { current: 1, capacity: 10, utilization: 0.1 },
          parking: { occupied: 0, total: 5, utilization: 0 },
        },
      ],
    ]);
    return { camera, orderId };
  }

  it('shows another tenant’s cameras and everything of theirs as absent', async () => {
    const { a, storeA } = context;
    const { camera, orderId } = await alphaCamera();
    expect(expectOk(await context.managerA('GET', `/v1/vision/cameras/${camera}`)).id).toBe(camera);

    for (const as of [context.adminB, context.managerB]) {
      expect(expectOk(await as('GET', '/api/vision/cameras')).cameras).toEqual([]);
      expect(expectOk(await as('GET', `/api/vision/cameras?location_id=${a.location.id}`)).cameras).toEqual(
        [],
      );
      expectError(await as('GET', `/v1/vision/cameras/${camera}`), 404, 'CAMERA_NOT_FOUND');
      expectError(await as('GET', `/v1/vision/cameras/${camera}/settings`), 404, 'CAMERA_NOT_FOUND');
      expectError(await as('GET', `/v1/vision/cameras/${camera}/detections`), 404, 'CAMERA_NOT_FOUND');
      expectError(
        await as('GET', `/v1/vision/drive-thru/tracks?camera_id=${camera}`),
        404,
        'CAMERA_NOT_FOUND',
      );
      expect(expectOk(await as('GET', `/v1/vision/drive-thru/tracks?location_id=${a.location.id}`))).toEqual(
        [],
      );
      expectError(await as('GET', '/api/vision/drive-thru/status'), 404, 'DRIVE_THRU_NOT_FOUND');
      expectError(
        await as('GET', `/v1/vision/drive-thru/status?camera_id=${camera}`),
        404,
        'DRIVE_THRU_NOT_FOUND',
      );
      expectError(
        await as('POST', '/api/vision/verify-order', {
          order_id: orderId,
          camera_id: camera,
          expected_items: [{ name: 'Fries', quantity: 1 }],
        }),
        404,
        'CAMERA_NOT_FOUND',
      );
      expectError(await as('GET', `/api/vision/occupancy/${a.location.id}`), 404, 'OCCUPANCY_NOT_FOUND');
      expectError(await as('GET', '/v1/vision/models/alpha-only/metrics'), 404, 'MODEL_NOT_FOUND');
      expectError(await as('GET', `/v1/vision/edge/${storeA.id}/settings`), 404, 'EDGE_NOT_FOUND');
      expectError(
        await as('GET', `/v1/vision/drive-thru/settings?location_id=${a.location.id}`),
        404,
        'LOCATION_NOT_FOUND',
      );
    }
  });

  it('lets no other tenant change them, and queues nothing for their appliance', async () => {
    const { cloud, a, storeA } = context;
    const { camera } = await alphaCamera();
    const commands = () =>
      cloud.store.db.selectFrom('device_commands').select('id').where('device_id', '=', storeA.id).execute();
    const before = await commands();
    expectError(
      await context.adminB('PUT', `/v1/vision/cameras/${camera}/settings`, { min_confidence: 0.1 }),
      404,
      'CAMERA_NOT_FOUND',
    );
    expectError(
      await context.adminB('POST', `/v1/vision/cameras/${camera}/calibrate`),
      404,
      'CAMERA_NOT_FOUND',
    );
    expectError(
      await context.adminB('PUT', `/v1/vision/edge/${storeA.id}/settings`, { video_retention_days: 1 }),
      404,
      'EDGE_NOT_FOUND',
    );
    expectError(
      await context.adminB('PUT', `/v1/vision/drive-thru/settings?location_id=${a.location.id}`, {
        min_track_length: 1,
      }),
      404,
      'LOCATION_NOT_FOUND',
    );
    expect(await commands()).toEqual(before);
    const awaited = await cloud.store.db.selectFrom('vision_desired_settings').selectAll().execute();
    expect(awaited).toEqual([]);
    // Alpha's own change still goes through.
    expectOk(await context.managerA('POST', `/v1/vision/cameras/${camera}/calibrate`), 202);
    expect(await commands()).toHaveLength(before.length + 1);
  });

  it('keeps each store’s rows under the tenant that pushed them', async () => {
    const { cloud } = context;
    // A tenant of the test's own syncs a camera: Bravo must keep none for the checks that it sees
    // none of Alpha's. Alpha does not see it and its tenant sees only it.
    const slug = `charlie-${++tenantSeq}`;
    const c = await seedTenant(cloud.services, slug);
    const store = await cloud.services.sync.provisionAppliance(c.tenant.id, {
      location_id: c.location.id,
      name: 'C1',
    });
    const manager = await signedInUser(cloud, c.tenant.id, `manager@${slug}.test`, ['manager']);
    const theirs = `cam-${newId()}`;
    await storePusher(cloud, store.credential)([['vision_camera_states', cameraState(cloud, theirs)]]);
    const listed = await cloud.app.inject({ url: '/api/vision/cameras', headers: bearer(manager.token) });
    expect(expectOk(listed).cameras).toMatchObject([{ id: theirs, location_id: c.location.id }]);
    expectError(await context.managerA('GET', `/v1/vision/cameras/${theirs}`), 404, 'CAMERA_NOT_FOUND');
  });
});
