import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoTrayClip } from '../../../../scripts/vision/world/demo-clips.ts';
import { systemClock } from '../../../../shared/clock.ts';
import { createTestAppliance, type TestAppliance } from '../../../support/appliance.ts';
import { waitFor } from '../../../support/processes.ts';

interface CameraStatus {
  id: string;
  state: string;
  reason: string | null;
  fps: number;
  inference_latency_ms: { p50: number | null; p99: number | null };
  frames_dropped_last_minute: number;
  last_frame_at: string | null;
}

/**
 * A camera shown live on a real appliance: a food camera playing a generated clip of trays
 * through the real ffmpeg and the shipped model, and a camera whose source does not exist.
 */
describe('a camera shown live', () => {
  let store: TestAppliance;
  const get = (url: string) =>
    store.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${store.cashier}` } });
  const statuses = async () => (await get('/v1/vision/cameras/status')).json().data.cameras as CameraStatus[];

  beforeAll(async () => {
    store = await createTestAppliance({ clock: systemClock });
    const clips = join(store.dir, 'clips');
    mkdirSync(clips, { recursive: true });
    const tray = await demoTrayClip(clips, [
      { item: 'Cheeseburger', quantity: 1 },
      { item: 'Fries', quantity: 2 },
    ]);
    const cameras = [
      { id: 'pass', source_url: `file://${tray}` },
      { id: 'gone', source_url: `file://${join(clips, 'missing.mp4')}` },
    ];
    for (const { id, source_url } of cameras) {
      const headers = { authorization: `Bearer ${store.manager}` };
      const created = await store.app.inject({
        method: 'POST',
        url: '/v1/vision/cameras',
        headers,
        payload: { id, name: id, type: 'food_recognition', source_url },
      });
      expect(created.statusCode, created.body).toBe(201);
      const settings = await store.app.inject({
        method: 'PUT',
        url: `/v1/vision/cameras/${id}/settings`,
        headers,
        payload: { inference_resolution: '640x480', inference_fps: 5 },
      });
      expect(settings.statusCode, settings.body).toBe(200);
    }
    store.app.vision!.start();
  }, 90_000);

  afterAll(async () => store?.close());

  // Every test looks at the food camera running: enabled again after a test that disabled it (an
  // enable of a camera that runs changes nothing), and showing boxes of the tray.
  beforeEach(async () => {
    const enabled = await store.app.inject({
      method: 'PATCH',
      url: '/v1/vision/cameras/pass',
      headers: { authorization: `Bearer ${store.manager}` },
      payload: { enabled: true },
    });
    expect(enabled.statusCode, enabled.body).toBe(200);
    await store.app.vision!.settled();
    await waitFor(
      'the food camera’s first boxes',
      async () => {
        const live = await get('/v1/vision/cameras/pass/live');
        return live.statusCode === 200 && live.json().data.detections.length > 0 ? true : undefined;
      },
      30_000,
    );
  });

  it('answers the picture now as a JPEG of the width asked, aspect kept, not to be cached', async () => {
    const response = await get('/v1/vision/cameras/pass/frame.jpg?width=320');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('image/jpeg');
    expect(response.headers['cache-control']).toBe('no-store');
    const image = await sharp(response.rawPayload).metadata();
    expect([image.format, image.width, image.height]).toEqual(['jpeg', 320, 240]);
    const { data, info } = await sharp(response.rawPayload).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(3);
    // A picture, not a blank: the tray's items make its pixels differ.
    expect(new Set(data).size).toBeGreaterThan(50);
    const standard = await get('/v1/vision/cameras/pass/frame.jpg');
    expect((await sharp(standard.rawPayload).metadata()).width).toBe(480);
    const large = await get('/v1/vision/cameras/pass/frame.jpg?width=1920');
    expect(await sharp(large.rawPayload).metadata()).toMatchObject({ width: 1920, height: 1440 });
  });

  it('answers the boxes of that same frame, normalised to it', async () => {
    const picture = await waitFor(
      'a frame the model has boxes for',
      async () => {
        const response = await get('/v1/vision/cameras/pass/frame.jpg?width=64');
        const seq = Number(response.headers['x-frame-seq']);
        const live = await get(`/v1/vision/cameras/pass/live?seq=${seq}`);
        return live.json().data.detections.length > 0 ? { response, live } : undefined;
      },
      20_000,
    );
    const live = picture.live.json().data;
    expect(live).toMatchObject({
      camera_id: 'pass',
      seq: Number(picture.response.headers['x-frame-seq']),
      frame_at: picture.response.headers['x-frame-at'],
      width: 640,
      height: 480,
    });
    expect(Date.parse(live.detections_at)).toBeLessThanOrEqual(Date.parse(live.frame_at));
    for (const detection of live.detections as Array<{ box: number[]; confidence: number; class: string }>) {
      const [x1, y1, x2, y2] = detection.box as [number, number, number, number];
      expect(detection.box.every((v) => v >= 0 && v <= 1)).toBe(true);
      expect(x2 > x1 && y2 > y1).toBe(true);
      expect(detection.confidence).toBeGreaterThanOrEqual(0.8);
      expect(['Cheeseburger', 'Fries']).toContain(detection.class);
    }
    const newest = await get('/v1/vision/cameras/pass/live');
    expect(newest.json().data.seq).toBeGreaterThanOrEqual(live.seq);
    const gone = await get('/v1/vision/cameras/pass/live?seq=999999999');
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error.code).toBe('FRAME_NOT_FOUND');
  });

  it('shows each camera’s state and figures, and why one is in error', async () => {
    const [pass, gone] = await waitFor(
      'the camera with no source in error',
      async () => {
        const list = await statuses();
        return list[1]?.state === 'error' ? list : undefined;
      },
      20_000,
    );
    expect(pass).toMatchObject({ id: 'pass', state: 'running', reason: null });
    expect(pass!.fps).toBeGreaterThan(0);
    expect(pass!.inference_latency_ms.p50).toBeGreaterThan(0);
    expect(pass!.inference_latency_ms.p99).toBeGreaterThanOrEqual(pass!.inference_latency_ms.p50!);
    expect(Date.now() - Date.parse(pass!.last_frame_at!)).toBeLessThan(5000);
    expect(pass!.frames_dropped_last_minute).toBeGreaterThanOrEqual(0);
    expect(gone).toMatchObject({ id: 'gone', state: 'error', fps: 0, last_frame_at: null });
    expect(gone!.reason).toMatch(/ffmpeg|no frame/);
    const noPicture = await get('/v1/vision/cameras/gone/frame.jpg');
    expect(noPicture.statusCode).toBe(409);
    expect(noPicture.json().error.code).toBe('CAMERA_NO_FRAME');
  });

  it('stops showing a camera once it is disabled', async () => {
    const patched = await store.app.inject({
      method: 'PATCH',
      url: '/v1/vision/cameras/pass',
      headers: { authorization: `Bearer ${store.manager}` },
      payload: { enabled: false },
    });
    expect(patched.statusCode).toBe(200);
    await store.app.vision!.settled();
    expect((await statuses())[0]).toMatchObject({
      id: 'pass',
      enabled: false,
      state: 'stopped',
      reason: 'disabled',
    });
    const frame = await get('/v1/vision/cameras/pass/frame.jpg');
    expect(frame.statusCode).toBe(409);
    expect(frame.json().error.code).toBe('CAMERA_NOT_RUNNING');
  });
});
