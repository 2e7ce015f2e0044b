import { afterEach, describe, expect, it } from 'vitest';
import { createVisionRig, makeCamera, type VisionRig } from './support.ts';

let rig: VisionRig;
afterEach(async () => {
  await rig?.close();
});

describe('camera registry', () => {
  it('registers, lists, shows, changes and removes a camera', async () => {
    rig = await createVisionRig();
    const { vision, manager, cashier } = rig;
    const created = await vision(manager, 'POST', '/v1/vision/cameras', makeCamera({ id: 'lane-1' }));
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toEqual({
      id: 'lane-1',
      name: 'Lane 1',
      type: 'drive_thru_lane',
      status: 'offline',
      fps: 0,
      last_detection: null,
      enabled: true,
      source_url: 'rtsp://admin:***@10.0.0.21:554/stream1',
      zones: [],
      status_reported_at: null,
      created_at: '2026-06-10T19:00:00.000Z',
      updated_at: '2026-06-10T19:00:00.000Z',
    });

    const listed = await vision(cashier, 'GET', '/api/vision/cameras');
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.cameras.map((c: { id: string }) => c.id)).toEqual(['lane-1']);
    expect((await vision(cashier, 'GET', '/v1/vision/cameras')).json().data).toEqual(listed.json().data);

    const patched = await vision(manager, 'PATCH', '/v1/vision/cameras/lane-1', {
      name: 'Lane A',
      source_url: 'rtsp://admin:***@10.0.0.21:554/stream1',
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data.name).toBe('Lane A');
    // Sent back masked, the URL keeps its real password.
    expect(rig.services.vision.camera('lane-1')?.sourceUrl).toBe('rtsp://admin:s3cret@10.0.0.21:554/stream1');

    expect((await vision(manager, 'DELETE', '/v1/vision/cameras/lane-1')).statusCode).toBe(204);
    // Registered, renamed, removed: the pipeline heard each once, the last with nothing to run.
    expect(rig.changes.map((c) => [c.cameraId, c.settings === undefined])).toEqual([
      ['lane-1', false],
      ['lane-1', false],
      ['lane-1', true],
    ]);
    expect((await vision(cashier, 'GET', '/v1/vision/cameras/lane-1')).json().error.code).toBe(
      'CAMERA_NOT_FOUND',
    );
    expect((await vision(manager, 'DELETE', '/v1/vision/cameras/lane-1')).statusCode).toBe(404);
  });

  it('shows the live figures the pipeline reports', async () => {
    rig = await createVisionRig();
    const { id } = await rig.register({ type: 'food_recognition', name: 'Pass' });
    expect(
      rig.services.vision.reportStatus(id, {
        status: 'online',
        fps: 14.6,
        lastDetection: new Date('2026-06-10T18:59:58Z'),
      }),
    ).toBe(true);
    expect(rig.services.vision.reportStatus('nope', { status: 'online', fps: 1 })).toBe(false);
    const shown = (await rig.vision(rig.cashier, 'GET', `/v1/vision/cameras/${id}`)).json().data;
    expect(shown).toMatchObject({
      type: 'food_recognition',
      status: 'online',
      fps: 14.6,
      last_detection: '2026-06-10T18:59:58.000Z',
      status_reported_at: '2026-06-10T19:00:00.000Z',
    });
    // A report without a detection keeps the last one; disabling drops the figures.
    rig.services.vision.reportStatus(id, { status: 'online', fps: 15 });
    expect(rig.services.vision.camera(id)?.lastDetection).toBe('2026-06-10T18:59:58.000Z');
    await rig.vision(rig.manager, 'PATCH', `/v1/vision/cameras/${id}`, { enabled: false });
    expect(rig.services.vision.camera(id)).toMatchObject({ status: 'offline', fps: 0, lastDetection: null });
  });

  it('refuses bad cameras with the field at fault', async () => {
    rig = await createVisionRig();
    const post = (body: object) => rig.vision(rig.manager, 'POST', '/v1/vision/cameras', body);
    const bad = async (body: object) => {
      const response = await post(body);
      expect(response.statusCode).toBe(400);
      return response.json().error.details.map((d: { field: string }) => d.field);
    };
    expect(await bad(makeCamera({ type: 'kitchen' }))).toContain('body.type');
    expect(await bad(makeCamera({ source_url: 'ftp://cam/1' }))).toContain('body.source_url');
    expect(await bad(makeCamera({ colour: 'red' }))).toContain('body.colour');
    expect(await bad(makeCamera({ id: 'a/b' }))).toContain('body.id');

    await rig.register({ id: 'lane-1' });
    const taken = await post(makeCamera({ id: 'lane-1', name: 'Other' }));
    expect([taken.statusCode, taken.json().error.code]).toEqual([409, 'CAMERA_ID_TAKEN']);
    const named = await post(makeCamera({ name: 'LANE 1' }));
    expect([named.statusCode, named.json().error.code]).toEqual([409, 'CAMERA_NAME_TAKEN']);
    const empty = await rig.vision(rig.manager, 'PATCH', '/v1/vision/cameras/lane-1', {});
    expect(empty.statusCode).toBe(400);
  });

  it('lets staff read and only managers change', async () => {
    rig = await createVisionRig();
    const { vision, cashier } = rig;
    await rig.register({ id: 'lane-1' });
    rig.changes.length = 0;
    expect((await vision(undefined, 'GET', '/api/vision/cameras')).statusCode).toBe(401);
    expect((await vision(cashier, 'GET', '/v1/vision/cameras/lane-1/settings')).statusCode).toBe(200);
    expect((await vision(cashier, 'GET', '/v1/vision/drive-thru/settings')).statusCode).toBe(200);
    for (const [method, url, body] of [
      ['POST', '/v1/vision/cameras', makeCamera({ name: 'X' })],
      ['PATCH', '/v1/vision/cameras/lane-1', { enabled: false }],
      ['DELETE', '/v1/vision/cameras/lane-1', undefined],
      ['PUT', '/v1/vision/cameras/lane-1/zones', { zones: [] }],
      ['PUT', '/v1/vision/cameras/lane-1/settings', { min_confidence: 0.5 }],
      ['PUT', '/v1/vision/drive-thru/settings', { min_track_length: 3 }],
      ['PUT', '/v1/vision/edge/self/settings', { video_retention_days: 7 }],
    ] as const) {
      const response = await vision(cashier, method, url, body);
      expect([url, method, response.statusCode]).toEqual([url, method, 403]);
    }
    expect(rig.changes).toEqual([]);
  });

  it('enforces max_concurrent_streams when registering and enabling', async () => {
    rig = await createVisionRig();
    const { vision, manager } = rig;
    expect(
      (await vision(manager, 'PUT', '/v1/vision/edge/self/settings', { max_concurrent_streams: 2 }))
        .statusCode,
    ).toBe(200);
    await rig.register({ name: 'A' });
    await rig.register({ name: 'B' });
    const third = await vision(manager, 'POST', '/v1/vision/cameras', makeCamera({ name: 'C' }));
    expect(third.statusCode).toBe(409);
    expect(third.json().error).toMatchObject({
      code: 'CAMERA_STREAM_LIMIT',
      message: expect.stringMatching(/at most 2/),
    });

    const off = await rig.register({ name: 'C', enabled: false });
    const enable = await vision(manager, 'PATCH', `/v1/vision/cameras/${off.id}`, { enabled: true });
    expect([enable.statusCode, enable.json().error.code]).toEqual([409, 'CAMERA_STREAM_LIMIT']);
    const lower = await vision(manager, 'PUT', '/v1/vision/edge/self/settings', {
      max_concurrent_streams: 1,
    });
    expect(lower.statusCode).toBe(409);
    expect(lower.json().error.details).toEqual([
      { field: 'body.max_concurrent_streams', message: 'is below the 2 cameras enabled' },
    ]);
    expect(
      (await vision(manager, 'PUT', '/v1/vision/edge/self/settings', { max_concurrent_streams: 3 }))
        .statusCode,
    ).toBe(200);
    expect(
      (await vision(manager, 'PATCH', `/v1/vision/cameras/${off.id}`, { enabled: true })).statusCode,
    ).toBe(200);
  });
});
