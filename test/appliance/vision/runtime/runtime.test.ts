import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoLaneClip, demoLaneZones, demoTrayClip } from '../../../../scripts/vision/world/demo-clips.ts';
import { systemClock } from '../../../../shared/clock.ts';
import { createTestAppliance, LOCATION, type TestAppliance } from '../../../support/appliance.ts';
import { waitFor } from '../../../support/processes.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type CameraStatus = { state: string; fps: number; inference_latency_ms: { p50: number | null } };

const TRAY = [
  { item: 'Cheeseburger', quantity: 1 },
  { item: 'Fries', quantity: 2 },
  { item: 'Soda', quantity: 1 },
] as const;

/** The settings the file runs its cameras with. */
const LANE_SETTINGS = { inference_resolution: '640x360', inference_fps: 10 };
const PASS_SETTINGS = { inference_resolution: '640x480', inference_fps: 10 };

/**
 * The appliance running its cameras: a drive-thru lane camera playing a generated lane clip and a
 * food camera looking at trays of one order, each through the real ffmpeg and the shipped models
 * in onnxruntime, with the store's orders, payments and kitchen flow driving verification.
 */
describe('the vision runtime on a real appliance', () => {
  let store: TestAppliance;
  let call: (
    token: string | undefined,
    method: Method,
    url: string,
    payload?: object,
  ) => Promise<Awaited<ReturnType<TestAppliance['app']['inject']>>>;
  const menu = new Map<string, string>();

  beforeAll(async () => {
    store = await createTestAppliance({ clock: systemClock });
    call = (token, method, url, payload) =>
      store.app.inject({
        method,
        url,
        ...(payload ? { payload } : {}),
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    const clips = join(store.dir, 'clips');
    mkdirSync(clips, { recursive: true });
    const [lane, tray] = await Promise.all([demoLaneClip(clips, 90), demoTrayClip(clips, TRAY)]);
    const category = store.services.menu.createCategory({ name: 'Food', position: 1 });
    for (const name of ['Cheeseburger', 'Fries', 'Soda', 'Milkshake'])
      menu.set(name, store.services.menu.createItem({ category_id: category.id, name, price_minor: 500 }).id);

    const registered = await Promise.all([
      call(store.manager, 'POST', '/v1/vision/cameras', {
        id: 'lane',
        name: 'Lane',
        type: 'drive_thru_lane',
        source_url: `file://${lane}`,
      }),
      call(store.manager, 'POST', '/v1/vision/cameras', {
        id: 'pass',
        name: 'Pass',
        type: 'food_recognition',
        source_url: `file://${tray}`,
      }),
    ]);
    for (const response of registered) expect(response.statusCode, response.body).toBe(201);
    const laneSettings = await call(store.manager, 'PUT', '/v1/vision/cameras/lane/settings', LANE_SETTINGS);
    expect(laneSettings.statusCode, laneSettings.body).toBe(200);
    const zones = await call(store.manager, 'PUT', '/v1/vision/cameras/lane/zones', {
      zones: demoLaneZones(),
    });
    expect(zones.statusCode, zones.body).toBe(200);
    const passSettings = await call(store.manager, 'PUT', '/v1/vision/cameras/pass/settings', PASS_SETTINGS);
    expect(passSettings.statusCode, passSettings.body).toBe(200);
    store.app.vision!.start();
    await store.app.vision!.settled();
  }, 120_000);

  afterAll(async () => store?.close());

  // Every test finds both cameras as set up above: enabled and with the file's settings again after
  // a test that disabled one or changed its settings (writing what a camera already has does not
  // touch its pipeline, so only such a camera restarts), both running and inferring, and the food
  // camera seeing the tray, as the orders verified against it expect.
  beforeEach(async () => {
    for (const [id, settings] of [
      ['lane', LANE_SETTINGS],
      ['pass', PASS_SETTINGS],
    ] as const) {
      const enabled = await call(store.manager, 'PATCH', `/v1/vision/cameras/${id}`, { enabled: true });
      expect(enabled.statusCode, enabled.body).toBe(200);
      const put = await call(store.manager, 'PUT', `/v1/vision/cameras/${id}/settings`, settings);
      expect(put.statusCode, put.body).toBe(200);
    }
    await store.app.vision!.settled();
    await waitFor(
      'both cameras inferring and the food camera’s boxes of the tray',
      async () => {
        const statuses = (await call(store.cashier, 'GET', '/v1/vision/cameras/status')).json().data
          .cameras as CameraStatus[];
        const inferring = statuses.every(
          (c) => c.state === 'running' && c.fps > 0 && (c.inference_latency_ms.p50 ?? 0) > 0,
        );
        const live = await call(store.cashier, 'GET', '/v1/vision/cameras/pass/live');
        return inferring && live.statusCode === 200 && live.json().data.detections.length > 0
          ? true
          : undefined;
      },
      30_000,
    );
  });

  const cameras = async () =>
    (await call(store.cashier, 'GET', '/api/vision/cameras')).json().data.cameras as Array<{
      id: string;
      status: string;
      fps: number;
      last_detection: string | null;
    }>;

  /** An order of the given items, sent to the kitchen and, when `ready`, every item done. */
  async function order(type: string, items: Array<[string, number]>) {
    const created = await store.services.orders.create({
      order_type: type as 'drive_thru',
      items: items.map(([name, quantity]) => ({ menu_item_id: menu.get(name)!, quantity })),
    });
    return created.id;
  }
  function markReady(orderId: string) {
    store.services.sendOrder(orderId);
    for (const item of store.services.orders.get(orderId).items)
      store.services.orders.completeItem(orderId, item.id);
  }
  const verifications = (orderId: string) =>
    store.events().filter((e) => e.type === 'vision.order_verified' && e.data.order_id === orderId);

  it('brings both cameras online with their figures', async () => {
    await waitFor(
      'both cameras online',
      async () => {
        const list = await cameras();
        return list.every((c) => c.status === 'online' && c.fps > 0) || undefined;
      },
      30_000,
    );
    expect(store.app.vision!.running().sort()).toEqual(['lane', 'pass']);
  }, 40_000);

  it('records the cars it starts tracking as detections, with a snapshot to show', async () => {
    const detections = await waitFor(
      'a lane detection with a snapshot',
      async () => {
        const response = await call(store.cashier, 'GET', '/v1/vision/cameras/lane/detections?limit=5');
        const list = response.json().data.detections as Array<{ name: string; snapshot: string | null }>;
        return list.some((d) => d.snapshot) ? list : undefined;
      },
      30_000,
    );
    expect(detections.length).toBeGreaterThan(0);
    expect(detections.every((d) => d.name === 'vehicle')).toBe(true);
    const snapshot = detections.find((d) => d.snapshot)!.snapshot!;
    const image = await call(store.cashier, 'GET', `/v1/vision/snapshots/${snapshot}`);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/jpeg');
    expect(image.rawPayload.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    const outside = await call(store.cashier, 'GET', '/v1/vision/snapshots/..%2F..%2Fappliance.db');
    expect(outside.statusCode).toBe(400);
    // What travels to the cloud: the rows, each with its outbox entry.
    const outbox = store.db
      .prepare("select count(*) as n from outbox where table_name = 'vision_detections'")
      .get() as { n: number };
    expect(outbox.n).toBeGreaterThan(0);
  }, 40_000);

  it('answers the drive-thru status from the lane camera', async () => {
    const status = await waitFor(
      'a car in the queue',
      async () => {
        const response = await call(store.cashier, 'GET', '/api/vision/drive-thru/status');
        const body = response.json().data;
        return body.queue_length > 0 ? body : undefined;
      },
      30_000,
    );
    expect(status).toMatchObject({ camera_id: 'lane', online: true });
    expect(['normal', 'busy', 'critical']).toContain(status.status);
    expect(status.cars[0].position).toBe(1);
    expect(status.cars.length).toBe(status.queue_length);
    const v1 = await call(store.cashier, 'GET', '/v1/vision/drive-thru/status?camera_id=pass');
    expect(v1.statusCode).toBe(404);
    expect(v1.json().error.code).toBe('NO_LANE_CAMERA');
  }, 40_000);

  it('verifies a drive-thru order when it is ready: right tray verified, a missing item raised', async () => {
    const right = await order('drive_thru', [
      ['Cheeseburger', 1],
      ['Fries', 2],
      ['Soda', 1],
    ]);
    const short = await order('takeout', [
      ['Cheeseburger', 1],
      ['Fries', 2],
      ['Soda', 1],
      ['Milkshake', 1],
    ]);
    const dineIn = await order('dine_in', [['Soda', 1]]);
    markReady(right);
    markReady(short);
    markReady(dineIn);
    const [ok] = await waitFor(
      'the right tray verified',
      async () => (verifications(right).length ? verifications(right) : undefined),
      15_000,
    );
    expect(ok!.data).toMatchObject({ verified: true, missing_items: [], extra_items: [], camera_id: 'pass' });
    const [mismatch] = await waitFor(
      'the short tray verified',
      async () => (verifications(short).length ? verifications(short) : undefined),
      15_000,
    );
    expect(mismatch!.data).toMatchObject({
      verified: false,
      missing_items: [{ name: 'Milkshake', quantity: 1 }],
      extra_items: [],
      trigger: 'order_ready',
    });
    expect(verifications(dineIn)).toEqual([]);
    const stored = await call(store.cashier, 'GET', `/api/vision/verifications?order_id=${short}`);
    expect(stored.json().data.verifications[0]).toMatchObject({ verified: false, order_id: short });
    expect(stored.json().data.verifications[0].snapshot).toMatch(/verification\.jpg$/);
  }, 40_000);

  it('verifies on demand, from the order’s items or from the items given, and refuses bad input', async () => {
    const id = await order('drive_thru', [
      ['Cheeseburger', 1],
      ['Fries', 2],
      ['Soda', 1],
    ]);
    const fromOrder = await call(store.cashier, 'POST', '/api/vision/verify-order', { order_id: id });
    expect(fromOrder.statusCode, fromOrder.body).toBe(200);
    expect(fromOrder.json().data).toMatchObject({ verified: true, trigger: 'on_demand' });
    const detections = fromOrder.json().data.detections as Array<{ name: string; matched: boolean }>;
    expect(
      detections
        .filter((d) => d.matched)
        .map((d) => d.name)
        .sort(),
    ).toEqual(['Cheeseburger', 'Fries', 'Fries', 'Soda']);
    const given = await call(store.cashier, 'POST', '/api/vision/verify-order', {
      order_id: 'pos-123',
      camera_id: 'pass',
      expected_items: [{ name: 'Fries', quantity: 2 }],
    });
    const verdict = given.json().data;
    // Extra items come strongest detection first, and which is strongest depends on the tray in view
    // (the clip plays four trays of the order, laid out differently): compared in name order.
    (verdict.extra_items as Array<{ name: string }> | undefined)?.sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    expect(verdict).toMatchObject({
      verified: false,
      missing_items: [],
      extra_items: [
        { name: 'Cheeseburger', quantity: 1 },
        { name: 'Soda', quantity: 1 },
      ],
    });
    const bad = await call(store.cashier, 'POST', '/api/vision/verify-order', {
      order_id: id,
      expected_items: [{ name: 'Fries', quantity: 0 }],
    });
    expect(bad.statusCode).toBe(400);
    const notRunning = await call(store.cashier, 'POST', '/api/vision/verify-order', {
      order_id: id,
      camera_id: 'nope',
    });
    expect(notRunning.statusCode).toBe(409);
    expect(notRunning.json().error.code).toBe('CAMERA_NOT_RUNNING');
    const unknownOrder = await call(store.cashier, 'POST', '/api/vision/verify-order', {
      order_id: 'no-such',
    });
    expect(unknownOrder.statusCode).toBe(404);
  }, 30_000);

  it('takes people’s word on verifications as the camera’s detection accuracy, alerting under 90% and 80%', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await call(store.cashier, 'POST', '/api/vision/verify-order', {
        order_id: `review-${i}`,
        camera_id: 'pass',
        expected_items: [{ name: 'Soda', quantity: 1 }],
      });
      ids.push(response.json().data.id);
    }
    const review = (id: string, correct: boolean) =>
      call(store.cashier, 'POST', `/api/vision/verifications/${id}/review`, { correct });
    const alerts = () =>
      store.events().filter((e) => e.type === 'vision.alert' && e.data.metric === 'detection_accuracy');
    for (const [i, id] of ids.entries()) {
      const answer = await review(id, i < 7);
      expect(answer.statusCode, answer.body).toBe(200);
    }
    // Seven right of ten: critical.
    expect(alerts().map((e) => [e.data.state, e.data.severity, e.data.value])).toEqual([
      ['raised', 'critical', 0.7],
    ]);
    // Two of the three looked at again: the camera was right after all. 90%: no alert.
    await review(ids[7]!, true);
    await review(ids[8]!, true);
    expect(alerts().map((e) => [e.data.state, e.data.severity])).toEqual([
      ['raised', 'critical'],
      ['raised', 'warning'],
      ['cleared', 'warning'],
    ]);
    const last = await review(ids[9]!, true);
    expect(last.json().data.accuracy).toEqual({ value: 1, reviewed: 10, window_hours: 24 });
    expect((await review('no-such', true)).statusCode).toBe(404);
    expect(
      (await call(store.cashier, 'POST', `/api/vision/verifications/${ids[0]}/review`, {})).statusCode,
    ).toBe(400);
  }, 30_000);

  it('counts the dining room and the car park for the store’s occupancy', async () => {
    const none = await call(store.cashier, 'GET', `/api/vision/occupancy/${LOCATION}`);
    expect(none.statusCode).toBe(404);
    const lane = store.services.vision.camera('lane')!;
    // The lane's view as a car park: a patch of ground in the middle of the pay window and of the
    // pickup window as two spaces, covered whenever a car stands at the window.
    const patch = (polygon: Array<[number, number]>) => {
      const x = polygon.reduce((sum, p) => sum + p[0], 0) / polygon.length;
      const y = polygon.reduce((sum, p) => sum + p[1], 0) / polygon.length;
      return [
        [x - 8, y - 4],
        [x + 8, y - 4],
        [x + 8, y + 4],
        [x - 8, y + 4],
      ];
    };
    const spaces = demoLaneZones()
      .filter((zone) => zone.name === 'pickup_window' || zone.name === 'pay_window')
      .map((zone, i) => ({ name: `space-${i + 1}`, polygon: patch(zone.polygon) }));
    const created = await call(store.manager, 'POST', '/v1/vision/cameras', {
      id: 'park',
      name: 'Car park',
      type: 'parking',
      source_url: lane.sourceUrl,
      enabled: false,
    });
    expect(created.statusCode, created.body).toBe(201);
    await call(store.manager, 'PUT', '/v1/vision/cameras/park/settings', {
      inference_resolution: '640x360',
      inference_fps: 10,
    });
    await call(store.manager, 'PUT', '/v1/vision/cameras/park/zones', { zones: spaces });
    await call(store.manager, 'PATCH', '/v1/vision/cameras/park', { enabled: true });
    await store.app.vision!.settled();
    const record = await waitFor(
      'the car park counted',
      async () => {
        const response = await call(store.cashier, 'GET', `/api/vision/occupancy/${LOCATION}`);
        const body = response.statusCode === 200 ? response.json().data : undefined;
        return body?.parking.occupied > 0 ? body : undefined;
      },
      60_000,
    );
    expect(record).toMatchObject({
      location_id: LOCATION,
      dining_room: { current: 0, capacity: 60, utilization: 0 },
      parking: { total: 2 },
    });
    expect(record.parking.utilization).toBe(record.parking.occupied / 2);
    const elsewhere = await call(
      store.cashier,
      'GET',
      '/api/vision/occupancy/01900000-0000-7000-8000-0000000000ff',
    );
    expect(elsewhere.statusCode).toBe(404);
    const stored = store.db
      .prepare('select parking from vision_occupancy where location_id = ?')
      .get(LOCATION);
    expect(stored).toBeDefined();
    await call(store.manager, 'DELETE', '/v1/vision/cameras/park');
    await store.app.vision!.settled();
  }, 80_000);

  it('calibrates a lane camera for managers: a still, and whether its zones make a lane', async () => {
    const denied = await call(store.cashier, 'POST', '/v1/vision/cameras/lane/calibrate');
    expect(denied.statusCode).toBe(403);
    const response = await call(store.manager, 'POST', '/v1/vision/cameras/lane/calibrate');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({
      camera_id: 'lane',
      width: 640,
      height: 360,
      lane_ready: true,
      missing_zones: [],
    });
    const still = await call(store.manager, 'GET', `/v1/vision/snapshots/${response.json().data.snapshot}`);
    expect(still.statusCode).toBe(200);
  }, 20_000);

  it('stores each car’s visit once it has left, and links the drive-thru order paid at the window', async () => {
    // A car at the pay window now pays for a drive-thru order.
    await waitFor(
      'a car at the pay window',
      async () => {
        const status = (await call(store.cashier, 'GET', '/api/vision/drive-thru/status')).json().data;
        return status.cars.some((car: { zone: string }) => car.zone === 'pay_window') || undefined;
      },
      60_000,
    );
    const paid = await order('drive_thru', [['Soda', 1]]);
    store.services.payments.record(paid, {
      method: 'cash',
      amount_minor: store.services.orders.billing(paid).total_minor,
    });
    const tracks = await waitFor(
      'the paid car’s track',
      async () => {
        const response = await call(store.cashier, 'GET', '/v1/vision/drive-thru/tracks?period=1h');
        const list = response.json().data.tracks as Array<{ order_id: string | null; outcome: string }>;
        return list.some((t) => t.order_id === paid) ? list : undefined;
      },
      90_000,
    );
    const linked = tracks.find((t) => t.order_id === paid)!;
    expect(linked).toMatchObject({ camera_id: 'lane', outcome: 'served' });
    expect((linked as unknown as { times: { total: number } }).times.total).toBeGreaterThan(0);
    const badPeriod = await call(store.cashier, 'GET', '/v1/vision/drive-thru/tracks?period=45d');
    expect(badPeriod.statusCode).toBe(400);
  }, 160_000);

  it('restarts only the camera whose settings change, and sums its minutes as model metrics', async () => {
    // The lane's minutes summed below must hold frames it read and did not infer (still ones
    // skipped, or dropped), as they do once the lane has run for a while.
    await waitFor(
      'the lane reading frames it does not infer',
      async () => {
        const live = (await call(store.cashier, 'GET', '/v1/vision/models/vehicles/metrics')).json().data
          .live as Array<{ camera_id: string; frames_skipped_by_motion: number; frames_dropped: number }>;
        const figures = live.find((m) => m.camera_id === 'lane');
        return figures && figures.frames_skipped_by_motion + figures.frames_dropped > 0 ? true : undefined;
      },
      20_000,
    );
    const pass = store.app.vision!.pipeline('pass');
    const lane = store.app.vision!.pipeline('lane');
    const put = await call(store.manager, 'PUT', '/v1/vision/cameras/lane/settings', {
      ...LANE_SETTINGS,
      min_confidence: 0.75,
    });
    expect(put.statusCode).toBe(200);
    await store.app.vision!.settled();
    expect(store.app.vision!.pipeline('pass')).toBe(pass);
    expect(store.app.vision!.pipeline('lane')).not.toBe(lane);
    // The restart closed the lane's minute: it is in the model's figures.
    const metrics = await call(store.cashier, 'GET', '/v1/vision/models/vehicles/metrics?period=1h');
    expect(metrics.statusCode, metrics.body).toBe(200);
    const body = metrics.json().data;
    expect(body.frames_inferred).toBeGreaterThan(0);
    expect(body.frames_read).toBeGreaterThan(body.frames_inferred);
    expect(body.inference_latency_ms.p99).toBeGreaterThan(0);
    expect(body.cameras.map((c: { camera_id: string }) => c.camera_id)).toContain('lane');
    expect(body.live).toHaveLength(1);
    const food = await call(store.cashier, 'GET', '/v1/vision/models/food-items/metrics');
    expect(food.json().data.live[0].camera_id).toBe('pass');
  }, 30_000);

  it('stops a camera that is disabled and reports it offline', async () => {
    const patched = await call(store.manager, 'PATCH', '/v1/vision/cameras/pass', { enabled: false });
    expect(patched.statusCode).toBe(200);
    await store.app.vision!.settled();
    expect(store.app.vision!.running()).toEqual(['lane']);
    const pass = (await cameras()).find((c) => c.id === 'pass')!;
    expect(pass).toMatchObject({ status: 'offline', fps: 0 });
    const verify = await call(store.cashier, 'POST', '/api/vision/verify-order', {
      order_id: 'x',
      expected_items: [{ name: 'Soda', quantity: 1 }],
    });
    expect(verify.statusCode).toBe(409);
    expect(verify.json().error.code).toBe('NO_PICKUP_CAMERA');
    const state = store.db
      .prepare("select status, enabled from vision_camera_states where id = 'pass'")
      .get();
    expect(state).toEqual({ status: 'offline', enabled: 0 });
  }, 20_000);
});
