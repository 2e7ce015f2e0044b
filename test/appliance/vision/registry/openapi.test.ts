import { afterEach, describe, expect, it } from 'vitest';
import { createVisionRig, type VisionRig } from './support.ts';

let rig: VisionRig;
afterEach(async () => {
  await rig?.close();
});

describe('vision API documentation', () => {
  it('lists every vision route with a summary', async () => {
    rig = await createVisionRig();
    const paths = (await rig.app.inject({ url: '/openapi.json' })).json().paths as Record<
      string,
      Record<string, { summary?: string }>
    >;
    const expected: Record<string, string[]> = {
      '/api/vision/cameras': ['get'],
      '/v1/vision/cameras': ['get', 'post'],
      '/v1/vision/cameras/{camera_id}': ['get', 'patch', 'delete'],
      '/v1/vision/cameras/{camera_id}/settings': ['get', 'put'],
      '/v1/vision/cameras/{camera_id}/zones': ['put'],
      '/v1/vision/drive-thru/settings': ['get', 'put'],
      '/v1/vision/edge/{edge_id}/settings': ['get', 'put'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      for (const method of methods) expect(paths[path]?.[method]?.summary, `${method} ${path}`).toBeTruthy();
    }
  });
});
