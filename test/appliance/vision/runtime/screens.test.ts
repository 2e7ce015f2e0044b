import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TrackRow } from '../../../../appliance/vision/runtime/history.ts';
import { createManualClock, type ManualClock } from '../../../../shared/clock.ts';
import { createTestAppliance, type TestAppliance } from '../../../support/appliance.ts';

/**
 * The operator screens' endpoints on a real appliance whose cameras are registered but not
 * started: the drive-thru's history from recorded visits on a clock the test sets, the cameras'
 * states, and the answers for a camera that cannot show a picture.
 */
describe('the vision endpoints for the operator screens, without cameras running', () => {
  let store: TestAppliance;
  let clock: ManualClock;
  const get = (url: string, token = store.cashier) =>
    store.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  beforeEach(async () => {
    // 15:00 in New York; the store's business day began at 04:00 local, 08:00 UTC.
    clock = createManualClock('2026-06-10T19:00:00.000Z');
    store = await createTestAppliance({ clock });
    for (const [id, type, enabled] of [
      ['lane', 'drive_thru_lane', true],
      ['pass', 'food_recognition', false],
    ] as const) {
      const created = await store.app.inject({
        method: 'POST',
        url: '/v1/vision/cameras',
        headers: { authorization: `Bearer ${store.manager}` },
        payload: { id, name: id, type, enabled, source_url: `file:///nowhere/${id}.mp4` },
      });
      expect(created.statusCode, created.body).toBe(201);
    }
  });
  afterEach(async () => store?.close());

  let tracks = 0;
  function visit(entered: string, left: string, outcome: TrackRow['outcome'], camera = 'lane') {
    const at = (time: string) => `2026-06-10T${time}:00.000Z`;
    store.services.visionHistory.addTrack({
      id: `track-${++tracks}`,
      camera_id: camera,
      entered_at: at(entered),
      left_at: at(left),
      outcome,
      order_id: null,
      pulled_forward: false,
      times: { total: (Date.parse(at(left)) - Date.parse(at(entered))) / 1000 },
      events: [],
    });
  }

  it('sums the recorded visits into buckets from the start of the business day', async () => {
    visit('07:50', '08:04', 'served');
    visit('08:02', '08:06', 'served');
    visit('08:03', '08:05', 'balked');
    visit('08:20', '08:30', 'served', 'other-lane');
    visit('18:58', '19:10', 'served');
    const response = await get('/api/vision/drive-thru/history?bucket_minutes=10');
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json().data;
    expect(body).toMatchObject({
      since: '2026-06-10T08:00:00.000Z',
      until: '2026-06-10T19:00:00.000Z',
      bucket_minutes: 10,
    });
    expect(body.buckets).toHaveLength(66);
    expect(body.buckets[0]).toEqual({
      at: '2026-06-10T08:00:00.000Z',
      // 4 + 4 + 2 car-minutes in 10.
      queue_length_avg: 1,
      queue_length_max: 3,
      // 14 and 4 minutes; the car that balked was not served.
      wait_seconds_avg: 540,
      cars_served: 2,
    });
    // The other lane's car: in the lane 08:20 to 08:30, served as the next bucket begins.
    expect(body.buckets.slice(2, 4)).toMatchObject([
      { queue_length_avg: 1, queue_length_max: 1, cars_served: 0, wait_seconds_avg: null },
      { queue_length_avg: 0, queue_length_max: 0, cars_served: 1, wait_seconds_avg: 600 },
    ]);
    // The car still in the lane at the end of the range: there, not yet served.
    expect(body.buckets.at(-1)).toEqual({
      at: '2026-06-10T18:50:00.000Z',
      queue_length_avg: 0.2,
      queue_length_max: 1,
      wait_seconds_avg: null,
      cars_served: 0,
    });

    const one = await get(
      '/api/vision/drive-thru/history?camera_id=lane&since=2026-06-10T08:00:00Z&until=2026-06-10T08:30:00Z',
    );
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().data.buckets.map((b: { cars_served: number }) => b.cars_served)).toEqual([
      1, 1, 0, 0, 0, 0,
    ]);
  });

  it('defaults to the business day the end of the range falls in, on the clock', async () => {
    clock.set('2026-06-11T06:00:00.000Z'); // 02:00 in New York: still the 10th's business day.
    const late = (await get('/api/vision/drive-thru/history?bucket_minutes=60')).json().data;
    expect([late.since, late.until, late.buckets.length]).toEqual([
      '2026-06-10T08:00:00.000Z',
      '2026-06-11T06:00:00.000Z',
      22,
    ]);
    const earlier = (await get('/api/vision/drive-thru/history?until=2026-06-09T12:00:00Z')).json().data;
    expect(earlier.since).toBe('2026-06-09T08:00:00.000Z');
  });

  it('refuses a range backwards, empty, past 7 days, a bucket outside 1–60, and an unknown camera', async () => {
    const answers = await Promise.all(
      [
        'since=2026-06-10T12:00:00Z&until=2026-06-10T11:00:00Z',
        'since=2026-06-10T12:00:00Z&until=2026-06-10T12:00:00Z',
        'since=2026-06-01T12:00:00Z&until=2026-06-08T12:00:01Z',
        'bucket_minutes=0',
        'bucket_minutes=61',
        'since=yesterday',
      ].map((query) => get(`/api/vision/drive-thru/history?${query}`)),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([400, 400, 400, 400, 400, 400]);
    expect(answers[0]!.json().error.details).toEqual([
      { field: 'querystring.since', message: 'must be before until' },
    ]);
    const week = await get(
      '/api/vision/drive-thru/history?since=2026-06-01T12:00:00Z&until=2026-06-08T12:00:00Z',
    );
    expect(week.statusCode).toBe(200);
    const unknown = await get('/api/vision/drive-thru/history?camera_id=nope');
    expect(unknown.statusCode).toBe(404);
    expect((await store.app.inject({ url: '/api/vision/drive-thru/history' })).statusCode).toBe(401);
  });

  it('lists every camera’s state, stopped while the pipelines do not run', async () => {
    const response = await get('/v1/vision/cameras/status');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.cameras).toEqual([
      {
        id: 'lane',
        name: 'lane',
        type: 'drive_thru_lane',
        enabled: true,
        state: 'stopped',
        reason: 'the camera pipelines are not running',
        fps: 0,
        inference_latency_ms: { p50: null, p99: null },
        frames_dropped_last_minute: 0,
        last_frame_at: null,
      },
      expect.objectContaining({ id: 'pass', enabled: false, state: 'stopped', reason: 'disabled' }),
    ]);
    expect(store.app.vision!.cameraStatuses()).toEqual(response.json().data.cameras);
  });

  it('documents the four endpoints, the picture as a JPEG', async () => {
    const paths = (await store.app.inject({ url: '/openapi.json' })).json().paths;
    for (const path of [
      '/api/vision/drive-thru/history',
      '/v1/vision/cameras/status',
      '/v1/vision/cameras/{camera_id}/frame.jpg',
      '/v1/vision/cameras/{camera_id}/live',
    ])
      expect(paths[path]?.get?.summary, path).toBeTruthy();
    const picture = paths['/v1/vision/cameras/{camera_id}/frame.jpg'].get.responses['200'];
    expect(Object.keys(picture.content)).toEqual(['image/jpeg']);
  });

  it('answers 404 for a camera not registered and 409 for one not running, for the picture and its boxes', async () => {
    for (const path of ['frame.jpg', 'live']) {
      const unknown = await get(`/v1/vision/cameras/nope/${path}`);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error.code).toBe('CAMERA_NOT_FOUND');
      const stopped = await get(`/v1/vision/cameras/pass/${path}`);
      expect(stopped.statusCode).toBe(409);
      expect(stopped.json().error.code).toBe('CAMERA_NOT_RUNNING');
    }
    expect((await get('/v1/vision/cameras/pass/frame.jpg?width=63')).statusCode).toBe(400);
    expect((await get('/v1/vision/cameras/pass/frame.jpg?width=1921')).statusCode).toBe(400);
    expect((await get('/v1/vision/cameras/pass/live?seq=0')).statusCode).toBe(400);
  });
});
