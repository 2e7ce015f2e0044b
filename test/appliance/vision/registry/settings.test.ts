import { afterEach, describe, expect, it } from 'vitest';
import { createFleetHandlers } from '../../../../appliance/fleet/handlers.ts';
import { createSettingsStore } from '../../../../appliance/fleet/settings.ts';
import { createVisionRegistry } from '../../../../appliance/vision/registry/index.ts';
import { createManualClock } from '../../../../shared/clock.ts';
import { newId } from '../../../../shared/ids.ts';
import { createVisionRig, type VisionRig } from './support.ts';

let rig: VisionRig;
afterEach(async () => {
  await rig?.close();
});

const CAMERA_DEFAULTS = {
  resolution: null,
  bitrate: null,
  fps: null,
  min_confidence: 0.8,
  iou_threshold: 0.5,
  inference_fps: 15,
  inference_resolution: '1280x720',
  model_variant: null,
};

describe('vision settings', () => {
  it('answers every camera setting with the defaults filled in', async () => {
    rig = await createVisionRig();
    await rig.register({ id: 'pass-1', type: 'food_recognition' });
    const got = await rig.vision(rig.cashier, 'GET', '/v1/vision/cameras/pass-1/settings');
    expect(got.json().data).toEqual(CAMERA_DEFAULTS);
    expect((await rig.vision(rig.cashier, 'GET', '/v1/vision/drive-thru/settings')).json().data).toEqual({
      track_timeout_seconds: 2,
      min_track_length: 2,
      vehicle_min_size: null,
    });
    expect((await rig.vision(rig.cashier, 'GET', '/v1/vision/edge/self/settings')).json().data).toEqual({
      max_concurrent_streams: 8,
      video_retention_days: 14,
      inference_batch_size: 4,
    });
    expect((await rig.vision(rig.cashier, 'GET', '/v1/vision/cameras/nope/settings')).statusCode).toBe(404);
  });

  it('replaces a camera’s settings, answers them effective and tells the pipeline once', async () => {
    rig = await createVisionRig();
    await rig.register({ id: 'lane-1' });
    await rig.register({ id: 'lane-2', name: 'Lane 2' });
    rig.changes.length = 0;
    const put = (body: object) => rig.vision(rig.manager, 'PUT', '/v1/vision/cameras/lane-1/settings', body);

    const first = await put({ min_confidence: 0.6, resolution: '1080p', model_variant: 'vehicles-s' });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toEqual({
      ...CAMERA_DEFAULTS,
      min_confidence: 0.6,
      resolution: '1080p',
      model_variant: 'vehicles-s',
    });
    expect(rig.changes).toEqual([
      { cameraId: 'lane-1', settings: expect.objectContaining({ camera: first.json().data }) },
    ]);
    // The same settings again change nothing, so the pipeline is not disturbed.
    await put({ min_confidence: 0.6, resolution: '1080p', model_variant: 'vehicles-s' });
    expect(rig.changes).toHaveLength(1);
    // PUT replaces: what is left out is back to its default.
    expect((await put({ iou_threshold: 0.4 })).json().data).toEqual({
      ...CAMERA_DEFAULTS,
      iou_threshold: 0.4,
    });
    expect(rig.changes.map((c) => c.cameraId)).toEqual(['lane-1', 'lane-1']);
    expect(rig.services.vision.effectiveSettings('lane-2')?.camera).toEqual(CAMERA_DEFAULTS);
  });

  it('a listener that throws fails neither the change nor the other listeners', async () => {
    rig = await createVisionRig();
    await rig.register({ id: 'lane-1' });
    rig.changes.length = 0;
    rig.services.vision.onChange(() => {
      throw new Error('pipeline busy');
    });
    const put = await rig.vision(rig.manager, 'PUT', '/v1/vision/cameras/lane-1/settings', {
      inference_fps: 5,
    });
    expect(put.statusCode).toBe(200);
    expect(rig.changes).toHaveLength(1);
  });

  it('refuses bad settings field by field', async () => {
    rig = await createVisionRig();
    await rig.register({ id: 'lane-1' });
    rig.changes.length = 0;
    const fields = async (url: string, body: object) => {
      const response = await rig.vision(rig.manager, 'PUT', url, body);
      expect(response.statusCode).toBe(400);
      return response.json().error.details.map((d: { field: string }) => d.field);
    };
    const camera = '/v1/vision/cameras/lane-1/settings';
    expect(await fields(camera, { resolution: 'huge' })).toEqual(['body.resolution']);
    expect(await fields(camera, { inference_resolution: '1080p' })).toEqual(['body.inference_resolution']);
    expect(await fields(camera, { min_confidence: 1.2 })).toEqual(['body.min_confidence']);
    expect(await fields(camera, { iou_threshold: -0.1 })).toEqual(['body.iou_threshold']);
    expect(await fields(camera, { inference_fps: 0 })).toEqual(['body.inference_fps']);
    expect(await fields(camera, { confidence: 0.5 })).toEqual(['body.confidence']);
    expect(await fields(camera, { model_variant: '../models/x' })).toEqual(['body.model_variant']);
    expect(await fields('/v1/vision/drive-thru/settings', { min_track_length: 0.5 })).toEqual([
      'body.min_track_length',
    ]);
    expect(await fields('/v1/vision/edge/self/settings', { inference_batch_size: 0 })).toEqual([
      'body.inference_batch_size',
    ]);
    expect(rig.changes).toEqual([]);
  });

  it('applies drive-thru and edge settings to every camera', async () => {
    rig = await createVisionRig();
    await rig.register({ id: 'lane-1' });
    await rig.register({ id: 'window-1', name: 'Window', type: 'pickup_window' });
    rig.changes.length = 0;
    const driveThru = await rig.vision(rig.manager, 'PUT', '/v1/vision/drive-thru/settings', {
      track_timeout_seconds: 2.5,
      vehicle_min_size: 40,
    });
    expect(driveThru.json().data).toEqual({
      track_timeout_seconds: 2.5,
      min_track_length: 2,
      vehicle_min_size: 40,
    });
    const edge = await rig.vision(rig.manager, 'PUT', '/v1/vision/edge/self/settings', {
      inference_batch_size: 8,
    });
    expect(edge.json().data).toEqual({
      max_concurrent_streams: 8,
      video_retention_days: 14,
      inference_batch_size: 8,
    });
    expect(rig.changes.map((c) => c.cameraId)).toEqual(['lane-1', 'window-1', 'lane-1', 'window-1']);
    expect(rig.services.vision.effectiveSettings('window-1')).toEqual({
      camera: CAMERA_DEFAULTS,
      drive_thru: { track_timeout_seconds: 2.5, min_track_length: 2, vehicle_min_size: 40 },
      edge: { max_concurrent_streams: 8, video_retention_days: 14, inference_batch_size: 8 },
    });
  });

  it('answers edge settings for this appliance only', async () => {
    rig = await createVisionRig();
    const other = await rig.vision(rig.cashier, 'GET', '/v1/vision/edge/another-edge/settings');
    expect([other.statusCode, other.json().error.code]).toEqual([404, 'EDGE_NOT_FOUND']);
    const put = await rig.vision(rig.manager, 'PUT', '/v1/vision/edge/another-edge/settings', {});
    expect(put.statusCode).toBe(404);
    // An appliance with a cloud credential also answers to the id the cloud knows it by.
    const own = createVisionRegistry({
      db: rig.db,
      clock: createManualClock(),
      newId,
      applianceId: 'edge-7',
    });
    expect(own.edgeSettings('edge-7').max_concurrent_streams).toBe(8);
    expect(() => own.edgeSettings('edge-8')).toThrow(/Edge device not found/);
  });

  it('shows settings the cloud pushed over the fleet link, and tells the pipeline', async () => {
    rig = await createVisionRig();
    await rig.register({ id: 'lane-1' });
    rig.changes.length = 0;
    // The fleet link keeps its own store over the same database, as appliance/fleet/index.ts does.
    const handlers = createFleetHandlers({
      syncNow: undefined,
      restartSelf: () => {},
      devices: rig.services.devices,
      deviceCommands: undefined,
      settings: createSettingsStore(rig.db, createManualClock()),
      updater: undefined,
    });
    const at = new Date().toISOString();
    const context = { progress: () => {}, signal: new AbortController().signal };
    const result = await handlers.settings!(
      {
        id: 'cmd-1',
        kind: 'settings',
        payload: { cameras: { 'lane-1': { inference_fps: 10 }, 'not-here': { fps: 5 } } },
        issued_at: at,
        expires_at: at,
      },
      context,
    );
    expect(result).toEqual({ sections: ['camera:lane-1', 'camera:not-here'] });
    const got = await rig.vision(rig.cashier, 'GET', '/v1/vision/cameras/lane-1/settings');
    expect(got.json().data).toEqual({ ...CAMERA_DEFAULTS, inference_fps: 10 });
    expect(rig.changes).toEqual([
      { cameraId: 'lane-1', settings: expect.objectContaining({ camera: got.json().data }) },
    ]);
  });
});
