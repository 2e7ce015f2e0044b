import type { EffectiveSettings } from '../../../../appliance/vision/settings/index.ts';
import { createTestAppliance, type TestAppliance } from '../../../support/appliance.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const makeCamera = (overrides: Record<string, unknown> = {}) => ({
  name: 'Lane 1',
  type: 'drive_thru_lane',
  source_url: 'rtsp://admin:s3cret@10.0.0.21:554/stream1',
  ...overrides,
});

/** A test appliance with a `vision()` caller and the registry's change hook recorded. */
export async function createVisionRig() {
  const appliance: TestAppliance = await createTestAppliance();
  const changes: Array<{ cameraId: string; settings: EffectiveSettings | undefined }> = [];
  appliance.services.vision.onChange((cameraId, settings) => changes.push({ cameraId, settings }));
  const vision = (token: string | undefined, method: Method, url: string, payload?: object) =>
    appliance.app.inject({
      method,
      url,
      ...(payload ? { payload } : {}),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const register = async (overrides: Record<string, unknown> = {}) => {
    const response = await vision(appliance.manager, 'POST', '/v1/vision/cameras', makeCamera(overrides));
    if (response.statusCode !== 201) throw new Error(`register: ${response.statusCode} ${response.body}`);
    return response.json().data as { id: string };
  };
  return { ...appliance, changes, vision, register };
}

export type VisionRig = Awaited<ReturnType<typeof createVisionRig>>;
