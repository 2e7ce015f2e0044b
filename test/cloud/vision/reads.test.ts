import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/ids.ts';
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

const MINUTE = 60_000;

describe.each(backends)('vision reads from synced rows on %s', (backend) => {
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

  it('lists the cameras the stores synced, with the spec’s camera record', async () => {
    const { cloud, a, a2 } = context;
    const lane = cameraId();
    const pickup = cameraId();
    const other = cameraId();
    await pushA([
      ['vision_camera_states', cameraState(cloud, lane)],
      ['vision_camera_states', cameraState(cloud, pickup, { type: 'pickup_window', model: null })],
    ]);
    await pushA2([
      ['vision_camera_states', cameraState(cloud, other, { type: 'parking', status: 'offline' })],
    ]);

    const all = expectOk(await context.staffA('GET', '/api/vision/cameras')).cameras as Array<{ id: string }>;
    expect(all.map((c) => c.id)).toEqual(expect.arrayContaining([lane, pickup, other]));
    const record = all.find((c) => c.id === lane);
    expect(record).toEqual({
      id: lane,
      name: `Camera ${lane.slice(0, 8)}`,
      type: 'drive_thru_lane',
      status: 'online',
      fps: 14.8,
      last_detection: ago(cloud, 5_000),
      location_id: a.location.id,
      enabled: true,
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
      model: 'vehicles@1.0.0',
      updated_at: ago(cloud, 10_000),
    });

    const atStore2 = expectOk(await context.managerA('GET', `/api/vision/cameras?location_id=${a2.id}`));
    expect(atStore2.cameras.map((c: { id: string }) => c.id)).toEqual([other]);

    // The store's next state replaces the row.
    await pushA([['vision_camera_states', cameraState(cloud, lane, { status: 'offline', fps: 0 })]]);
    expect(expectOk(await context.staffA('GET', `/v1/vision/cameras/${lane}`))).toMatchObject({
      id: lane,
      status: 'offline',
      fps: 0,
    });
  });

  it('needs a store-level role, and a session at all', async () => {
    expectError(await context.financeA('GET', '/api/vision/cameras'), 403, 'FORBIDDEN');
    expectError(await context.anonymous('GET', '/api/vision/cameras'), 401, 'MISSING_TOKEN');
    expectError(await context.staffA('GET', '/api/vision/cameras?location_id=nope'), 400, 'INVALID_REQUEST');
    expectError(await context.staffA('GET', '/v1/vision/cameras/no-such-camera'), 404, 'CAMERA_NOT_FOUND');
    expectError(await context.staffA('GET', '/v1/vision/cameras/bad%20id'), 400, 'INVALID_REQUEST');
  });

  it('answers a lane’s status, asking which lane when the tenant has several', async () => {
    const { cloud, a, a2 } = context;
    const laneA = cameraId();
    const laneA2 = cameraId();
    await pushA([
      ['vision_camera_states', cameraState(cloud, laneA)],
      ['vision_lane_states', laneState(cloud, laneA)],
    ]);
    await pushA2([
      ['vision_camera_states', cameraState(cloud, laneA2, { updated_at: ago(cloud, 5 * MINUTE) })],
      [
        'vision_lane_states',
        laneState(cloud, laneA2, { updated_at: ago(cloud, 5 * MINUTE), queue_length: 0, cars: [] }),
      ],
    ]);

    const ambiguous = expectError(
      await context.staffA('GET', '/api/vision/drive-thru/status'),
      400,
      'LOCATION_REQUIRED',
    );
    expect(ambiguous.details).toEqual([
      { field: 'query.location_id', message: 'is required when the tenant has several lanes' },
    ]);
    const status = expectOk(
      await context.staffA('GET', `/api/vision/drive-thru/status?location_id=${a.location.id}`),
    );
    expect(status).toEqual({
      location_id: a.location.id,
      camera_id: laneA,
      queue_length: 2,
      estimated_wait_seconds: 95,
      cars: [
        { position: 1, wait_seconds: 61.2 },
        { position: 2, wait_seconds: 20.4 },
      ],
      orders_per_hour: 42.5,
      status: 'normal',
      counts: { completed: 30, pulled_forward: 2, balked: 1 },
      updated_at: ago(cloud, 15_000),
      stale: false,
    });
    expect(
      expectOk(await context.staffA('GET', `/v1/vision/drive-thru/status?location_id=${a.location.id}`)),
    ).toEqual(status);

    // Five minutes without a word from store 2: stale.
    const quiet = expectOk(await context.staffA('GET', `/v1/vision/drive-thru/status?camera_id=${laneA2}`));
    expect(quiet).toMatchObject({ location_id: a2.id, queue_length: 0, cars: [], stale: true });
    // A fresh lane whose camera went offline is stale too.
    await pushA([
      [
        'vision_camera_states',
        cameraState(cloud, laneA, { status: 'offline', updated_at: ago(cloud, 1_000) }),
      ],
    ]);
    expect(
      expectOk(await context.staffA('GET', `/v1/vision/drive-thru/status?location_id=${a.location.id}`))
        .stale,
    ).toBe(true);

    // A second lane at store 1: the store must be narrowed to one camera.
    const second = cameraId();
    await pushA([
      ['vision_camera_states', cameraState(cloud, second)],
      ['vision_lane_states', laneState(cloud, second, { status: 'busy', queue_length: 6 })],
    ]);
    expectError(
      await context.staffA('GET', `/v1/vision/drive-thru/status?location_id=${a.location.id}`),
      400,
      'CAMERA_REQUIRED',
    );
    const narrowed = expectOk(
      await context.staffA(
        'GET',
        `/v1/vision/drive-thru/status?location_id=${a.location.id}&camera_id=${second}`,
      ),
    );
    expect(narrowed).toMatchObject({ camera_id: second, status: 'busy', queue_length: 6 });
    expectError(
      await context.staffA('GET', `/v1/vision/drive-thru/status?camera_id=${cameraId()}`),
      404,
      'DRIVE_THRU_NOT_FOUND',
    );
    expectError(
      await context.staffA('GET', '/v1/vision/drive-thru/status?location=x'),
      400,
      'INVALID_REQUEST',
    );
  });

  it('answers an order’s latest verification at a camera, and says when the store has none', async () => {
    const { cloud, a } = context;
    const pickup = cameraId();
    const orderId = newId();
    const verification = (verified: number, createdAt: string, missing: unknown[]) => ({
      id: newId(),
      order_id: orderId,
      camera_id: pickup,
      trigger: 'order_ready',
      verified,
      detections: [
        { name: 'Cheeseburger', confidence: 0.93, matched: true },
        { name: 'Fries', confidence: 0.55, matched: false },
      ],
      missing_items: missing,
      extra_items: [],
      snapshot: null,
      created_at: createdAt,
    });
    await pushA([
      ['vision_camera_states', cameraState(cloud, pickup, { type: 'pickup_window' })],
      ['vision_verifications', verification(0, ago(cloud, 60_000), [{ name: 'Fries', quantity: 1 }])],
      ['vision_verifications', verification(1, ago(cloud, 20_000), [])],
    ]);
    const body = {
      order_id: orderId,
      camera_id: pickup,
      expected_items: [{ name: 'Cheeseburger', quantity: 1 }],
    };
    const answer = expectOk(await context.staffA('POST', '/api/vision/verify-order', body));
    expect(answer).toEqual({
      verified: true,
      detections: [
        { name: 'Cheeseburger', confidence: 0.93, matched: true },
        { name: 'Fries', confidence: 0.55, matched: false },
      ],
      missing_items: [],
      extra_items: [],
      order_id: orderId,
      camera_id: pickup,
      location_id: a.location.id,
      verification_id: expect.any(String),
      trigger: 'order_ready',
      verified_at: ago(cloud, 20_000),
    });

    expectError(
      await context.staffA('POST', '/api/vision/verify-order', { ...body, order_id: newId() }),
      404,
      'VERIFICATION_NOT_FOUND',
    );
    expectError(
      await context.staffA('POST', '/api/vision/verify-order', { ...body, camera_id: cameraId() }),
      404,
      'CAMERA_NOT_FOUND',
    );
    const invalid = [
      [{ order_id: orderId, camera_id: pickup }, 'body.expected_items'],
      [{ ...body, expected_items: [] }, 'body.expected_items'],
      [{ ...body, expected_items: [{ name: 'Fries', quantity: 0 }] }, 'body.expected_items.0.quantity'],
      [{ ...body, expected_items: [{ name: 'Fries' }] }, 'body.expected_items.0.quantity'],
      [{ ...body, extra: true }, 'body.extra'],
      [{ ...body, order_id: '' }, 'body.order_id'],
    ] as const;
    for (const [payload, field] of invalid) {
      const error = expectError(
        await context.staffA('POST', '/api/vision/verify-order', payload),
        400,
        'INVALID_REQUEST',
      );
      expect(
        error.details.map((d) => d.field),
        field,
      ).toContain(field);
    }
  });

  it('answers a store’s occupancy once it has synced one', async () => {
    const { cloud, a } = context;
    expectError(
      await context.staffA('GET', `/api/vision/occupancy/${a.location.id}`),
      404,
      'OCCUPANCY_NOT_FOUND',
    );
    const occupancy = {
      location_id: a.location.id,
      timestamp: ago(cloud, 3_000),
      dining_room: { current: 18, capacity: 60, utilization: 0.3 },
      parking: { occupied: 9, total: 24, utilization: 0.38 },
    };
    await pushA([['vision_occupancy', occupancy]]);
    expect(expectOk(await context.staffA('GET', `/api/vision/occupancy/${a.location.id}`))).toEqual(
      occupancy,
    );
    await pushA([
      ['vision_occupancy', { ...occupancy, dining_room: { current: 30, capacity: 60, utilization: 0.5 } }],
    ]);
    expect(
      expectOk(await context.staffA('GET', `/api/vision/occupancy/${a.location.id}`)).dining_room.current,
    ).toBe(30);
    expectError(await context.staffA('GET', '/api/vision/occupancy/not-a-uuid'), 400, 'INVALID_REQUEST');
  });

  it('pages a camera’s detections newest first', async () => {
    const { cloud } = context;
    const camera = cameraId();
    const rows = Array.from({ length: 7 }, (_, i) => detection(camera, ago(cloud, (i + 1) * 1000)));
    // Two at the same moment are ordered by id.
    rows.push(detection(camera, rows[2]!.detected_at as string));
    await pushA([
      ['vision_camera_states', cameraState(cloud, camera)],
      ...rows.map((row) => ['vision_detections', row] as const),
    ]);
    const expected = [...rows]
      .sort((x, y) =>
        x.detected_at === y.detected_at ? (x.id < y.id ? 1 : -1) : x.detected_at < y.detected_at ? 1 : -1,
      )
      .map((row) => row.id);

    const seen: string[] = [];
    let url = `/v1/vision/cameras/${camera}/detections?limit=3`;
    for (let page = 0; page < 5; page += 1) {
      const response = await context.staffA('GET', url);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      seen.push(...body.data.map((d: { id: string }) => d.id));
      expect(body.meta.pagination.limit).toBe(3);
      if (!body.meta.pagination.next_cursor) break;
      url = `/v1/vision/cameras/${camera}/detections?limit=3&cursor=${body.meta.pagination.next_cursor}`;
    }
    expect(seen).toEqual(expected);

    const first = expectOk(await context.staffA('GET', `/v1/vision/cameras/${camera}/detections`))[0];
    expect(first).toEqual({
      id: expected[0],
      camera_id: camera,
      location_id: context.a.location.id,
      track_id: expect.any(String),
      name: 'car',
      confidence: 0.91,
      box: [10, 20, 200, 180],
      detected_at: ago(cloud, 1000),
      snapshot: null,
    });
    expect(expectOk(await context.staffA('GET', `/v1/vision/cameras/${camera}/detections`))).toHaveLength(8);
    for (const query of ['limit=0', 'limit=501', 'cursor=garbage', 'since=1h'])
      expectError(
        await context.staffA('GET', `/v1/vision/cameras/${camera}/detections?${query}`),
        400,
        'INVALID_REQUEST',
      );
    expectError(
      await context.staffA('GET', `/v1/vision/cameras/${cameraId()}/detections`),
      404,
      'CAMERA_NOT_FOUND',
    );
  });

  it('lists the lane’s tracks of a period, filtered and paged', async () => {
    const { cloud, a, a2 } = context;
    const lane = cameraId();
    const orderId = newId();
    const tracks = [
      track(lane, ago(cloud, 10 * MINUTE), { order_id: orderId }),
      track(lane, ago(cloud, 30 * MINUTE), { outcome: 'balked', pulled_forward: 1 }),
      track(lane, ago(cloud, 2 * 60 * MINUTE)),
      track(lane, ago(cloud, 2 * 24 * 60 * MINUTE)),
    ];
    await pushA([
      ['vision_camera_states', cameraState(cloud, lane)],
      ...tracks.map((row) => ['vision_tracks', row] as const),
    ]);
    const ids = (data: Array<{ id: string }>) => data.map((t) => t.id);
    const list = async (query: string) =>
      ids(expectOk(await context.staffA('GET', `/v1/vision/drive-thru/tracks?camera_id=${lane}&${query}`)));
    expect(await list('')).toEqual([tracks[0]!.id, tracks[1]!.id]);
    expect(await list('period=24h')).toEqual(ids(tracks.slice(0, 3)));
    expect(await list('period=7d')).toEqual(ids(tracks));
    expect(await list('period=15m')).toEqual([tracks[0]!.id]);

    const [newest] = expectOk(await context.staffA('GET', `/v1/vision/drive-thru/tracks?camera_id=${lane}`));
    expect(newest).toEqual({
      id: tracks[0]!.id,
      camera_id: lane,
      location_id: a.location.id,
      entered_at: tracks[0]!.entered_at,
      left_at: tracks[0]!.left_at,
      outcome: 'served',
      order_id: orderId,
      pulled_forward: false,
      times: { menu_board: 40, pay_window: 35, pickup_window: 60, pull_forward: null, total: 180 },
      events: [{ kind: 'entered', at: tracks[0]!.entered_at }],
    });

    const pageOne = await context.staffA(
      'GET',
      `/v1/vision/drive-thru/tracks?camera_id=${lane}&period=7d&limit=3`,
    );
    const cursor = pageOne.json().meta.pagination.next_cursor;
    expect(ids(pageOne.json().data)).toEqual(ids(tracks.slice(0, 3)));
    const pageTwo = await context.staffA(
      'GET',
      `/v1/vision/drive-thru/tracks?camera_id=${lane}&period=7d&limit=3&cursor=${cursor}`,
    );
    expect(ids(pageTwo.json().data)).toEqual([tracks[3]!.id]);
    expect(pageTwo.json().meta.pagination.next_cursor).toBeNull();

    expect(await list(`location_id=${a2.id}`)).toEqual([]);
    const atStore1 = ids(
      expectOk(await context.staffA('GET', `/v1/vision/drive-thru/tracks?location_id=${a.location.id}`)),
    );
    expect(atStore1).toEqual(expect.arrayContaining([tracks[0]!.id, tracks[1]!.id]));

    for (const period of ['31d', '0h', '1w', 'soon'])
      expectError(
        await context.staffA('GET', `/v1/vision/drive-thru/tracks?period=${period}`),
        400,
        'INVALID_REQUEST',
      );
    expectError(
      await context.staffA('GET', `/v1/vision/drive-thru/tracks?camera_id=${cameraId()}`),
      404,
      'CAMERA_NOT_FOUND',
    );
  });

  it('sums a model’s minutes over the period, per camera, with threshold alerts', async () => {
    const { cloud, a, a2 } = context;
    const steady = cameraId();
    const struggling = cameraId();
    const minuteAgo = (n: number) => {
      const at = Date.parse(ago(cloud, n * MINUTE));
      return new Date(at - (at % MINUTE)).toISOString();
    };
    await pushA([
      ['vision_model_minutes', minute(steady, minuteAgo(2))],
      [
        'vision_model_minutes',
        minute(steady, minuteAgo(3), { frames_inferred: 200, inference_ms: { p50: 80, p99: 200, mean: 90 } }),
      ],
      // Two days ago: outside 24h, inside 7d.
      ['vision_model_minutes', minute(steady, minuteAgo(2 * 24 * 60), { camera_fps: 3 })],
      // Another model.
      ['vision_model_minutes', minute(steady, minuteAgo(2), {}, { model_id: 'food-items' })],
    ]);
    await pushA2([
      [
        'vision_model_minutes',
        minute(struggling, minuteAgo(5), {
          camera_fps: 4,
          frames_inferred: 100,
          inference_ms: { p50: 700, p99: 1500, mean: 800 },
        }),
      ],
    ]);

    const metrics = expectOk(await context.staffA('GET', '/v1/vision/models/vehicles/metrics'));
    expect(metrics).toMatchObject({ model_id: 'vehicles', period: '24h', minutes: 3 });
    expect(Date.parse(metrics.to) - Date.parse(metrics.from)).toBe(24 * 60 * MINUTE);
    expect(metrics.frames).toEqual({ read: 2700, skipped_by_motion: 840, dropped: 60 });
    expect(metrics.inferences).toBe(900);
    expect(metrics.detections).toBe(36);
    // (40·600 + 80·200 + 700·100) / 900 = 122.22
    expect(metrics.latency_ms.p50).toBe(122.22);
    expect(metrics.capture_to_result_ms).toEqual({ p50: 60, p95: 90, p99: 150 });
    expect(metrics.camera_fps).toBe(11.33);
    const byCamera = Object.fromEntries(metrics.cameras.map((c: { camera_id: string }) => [c.camera_id, c]));
    expect(byCamera[steady]).toMatchObject({
      location_id: a.location.id,
      minutes: 2,
      inferences: 800,
      camera_fps: 15,
    });
    expect(byCamera[steady].latency_ms).toEqual({ p50: 50, p99: 140, mean: 56.25 });
    expect(byCamera[struggling]).toMatchObject({ location_id: a2.id, camera_fps: 4 });
    expect(metrics.alerts).toEqual([
      {
        metric: 'camera_fps',
        severity: 'critical',
        camera_id: struggling,
        location_id: a2.id,
        value: 4,
        threshold: 5,
      },
      {
        metric: 'inference_latency_p99',
        severity: 'critical',
        camera_id: struggling,
        location_id: a2.id,
        value: 1500,
        threshold: 1000,
      },
    ]);

    const week = expectOk(await context.staffA('GET', '/v1/vision/models/vehicles/metrics?period=7d'));
    expect(week.minutes).toBe(4);
    const store1 = expectOk(
      await context.staffA(
        'GET',
        `/v1/vision/models/vehicles/metrics?period=1h&location_id=${a.location.id}`,
      ),
    );
    expect(store1).toMatchObject({ minutes: 2, alerts: [] });
    expect(expectOk(await context.staffA('GET', '/v1/vision/models/food-items/metrics')).minutes).toBe(1);
    expectError(await context.staffA('GET', '/v1/vision/models/faces/metrics'), 404, 'MODEL_NOT_FOUND');
    for (const query of ['period=60d', 'period=1y', 'period=0m'])
      expectError(
        await context.staffA('GET', `/v1/vision/models/vehicles/metrics?${query}`),
        400,
        'INVALID_REQUEST',
      );
  });

  it('keeps a session signed in at a store to that store', async () => {
    const { cloud, a, a2 } = context;
    const here = cameraId();
    const there = cameraId();
    await pushA([['vision_camera_states', cameraState(cloud, here)]]);
    await pushA2([['vision_camera_states', cameraState(cloud, there)]]);
    const pin = await context.staffAtStore1();
    const listed = expectOk(await pin('GET', '/api/vision/cameras')).cameras as Array<{
      location_id: string;
      id: string;
    }>;
    expect(listed.map((c) => c.id)).toContain(here);
    expect(listed.every((c) => c.location_id === a.location.id)).toBe(true);
    expectError(await pin('GET', `/api/vision/cameras?location_id=${a2.id}`), 403, 'FORBIDDEN');
    expectError(await pin('GET', `/v1/vision/cameras/${there}`), 404, 'CAMERA_NOT_FOUND');
    expectError(await pin('GET', `/api/vision/occupancy/${a2.id}`), 403, 'FORBIDDEN');
    expect(expectOk(await pin('GET', `/v1/vision/cameras/${here}`)).id).toBe(here);
  });
});
