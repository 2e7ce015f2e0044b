import { afterEach, describe, expect, it } from 'vitest';
import { createVisionRig, type VisionRig } from './support.ts';

let rig: VisionRig;
afterEach(async () => {
  await rig?.close();
});

const menu = {
  name: 'menu',
  polygon: [
    [100, 400],
    [500, 400],
    [500, 700],
    [100, 700],
  ],
};
const pickup = {
  name: 'pickup',
  polygon: [
    [600, 300],
    [1280, 300],
    [1280, 720],
  ],
};

describe('camera zones', () => {
  it('stores zones in order and tells the pipeline', async () => {
    rig = await createVisionRig();
    await rig.register({ id: 'lane-1' });
    rig.changes.length = 0;
    const put = await rig.vision(rig.manager, 'PUT', '/v1/vision/cameras/lane-1/zones', {
      zones: [menu, pickup],
    });
    expect(put.statusCode).toBe(200);
    expect(put.json().data.zones).toEqual([menu, pickup]);
    expect(rig.changes.map((c) => c.cameraId)).toEqual(['lane-1']);
    expect(rig.services.vision.camera('lane-1')?.zones).toEqual([menu, pickup]);
  });

  it('refuses polygons of two points, outside the inference resolution, flat or named twice', async () => {
    rig = await createVisionRig();
    await rig.register({ id: 'lane-1' });
    const fields = async (zones: object[]) => {
      const response = await rig.vision(rig.manager, 'PUT', '/v1/vision/cameras/lane-1/zones', { zones });
      expect(response.statusCode).toBe(400);
      return response.json().error.details;
    };
    expect(
      await fields([
        {
          name: 'menu',
          polygon: [
            [0, 0],
            [10, 10],
          ],
        },
      ]),
    ).toEqual([{ field: 'body.zones.0.polygon', message: expect.any(String) }]);
    expect(
      await fields([
        {
          name: 'menu',
          polygon: [
            [0, 0],
            [1281, 10],
            [10, 700],
          ],
        },
      ]),
    ).toEqual([{ field: 'body.zones.0.polygon.1', message: 'is outside 1280x720' }]);
    expect(
      await fields([
        {
          name: 'menu',
          polygon: [
            [0, 0],
            [10, 10],
            [20, 20],
          ],
        },
      ]),
    ).toEqual([{ field: 'body.zones.0.polygon', message: 'encloses no area' }]);
    expect(await fields([menu, { ...pickup, name: 'menu' }])).toEqual([
      { field: 'body.zones.1.name', message: 'is used twice' },
    ]);
    expect(
      await fields([
        {
          name: 'menu',
          polygon: [
            [-1, 0],
            [10, 10],
            [0, 20],
          ],
        },
      ]),
    ).toHaveLength(1);
    const registered = await rig.vision(rig.manager, 'POST', '/v1/vision/cameras', {
      name: 'Lane 2',
      type: 'drive_thru_lane',
      source_url: 'file:///data/clips/lane.mp4',
      zones: [
        {
          name: 'menu',
          polygon: [
            [0, 0],
            [10, 0],
          ],
        },
      ],
    });
    expect(registered.statusCode).toBe(400);
  });

  it('checks zones against the camera’s own inference resolution and scales them when it changes', async () => {
    rig = await createVisionRig();
    await rig.register({ id: 'lane-1' });
    await rig.vision(rig.manager, 'PUT', '/v1/vision/cameras/lane-1/settings', {
      inference_resolution: '640x360',
    });
    const outside = await rig.vision(rig.manager, 'PUT', '/v1/vision/cameras/lane-1/zones', {
      zones: [menu],
    });
    expect(outside.json().error.details.map((d: { field: string }) => d.field)).toEqual(
      [0, 1, 2, 3].map((p) => `body.zones.0.polygon.${p}`),
    );
    const half = {
      name: 'menu',
      polygon: [
        [50, 200],
        [250, 200],
        [250, 350],
        [50, 350],
      ],
    };
    expect(
      (await rig.vision(rig.manager, 'PUT', '/v1/vision/cameras/lane-1/zones', { zones: [half] })).statusCode,
    ).toBe(200);
    rig.changes.length = 0;
    await rig.vision(rig.manager, 'PUT', '/v1/vision/cameras/lane-1/settings', {
      inference_resolution: '1280x720',
    });
    expect(rig.services.vision.camera('lane-1')?.zones).toEqual([
      {
        name: 'menu',
        polygon: [
          [100, 400],
          [500, 400],
          [500, 700],
          [100, 700],
        ],
      },
    ]);
    expect(rig.changes).toHaveLength(1);
  });
});
