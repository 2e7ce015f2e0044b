import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Box } from '../../../../appliance/vision/types.ts';
import type { CloudServices } from '../../../../cloud/services.ts';
import { deviceKey } from '../../../cloud/devices/device-client.ts';
import { bearer, loginTokens, seedTenant } from '../../../support/cloud.ts';

// A detector trained by the project's recipe on red and green rectangles (scripts/vision/train/fixture.py).
export const FIXTURE = join(import.meta.dirname, '../../../fixtures/vision/rectangles');
export const fixtureBytes = readFileSync(`${FIXTURE}.onnx`);
export const fixtureManifest = JSON.parse(readFileSync(`${FIXTURE}.json`, 'utf8')) as Record<string, unknown>;
export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
export const detectOptions = { floor: 0.5, iouThreshold: 0.5 };

/** A grey frame with one filled rectangle, as the fixture model was trained on. */
export function frame(color: 'red' | 'green', box: Box = [40, 40, 80, 80], size = 128) {
  const data = Buffer.alloc(size * size * 3, 115);
  for (let y = box[1]; y < box[3]; y += 1)
    for (let x = box[0]; x < box[2]; x += 1) {
      const at = (y * size + x) * 3;
      data[at] = color === 'red' ? 230 : 26;
      data[at + 1] = color === 'green' ? 230 : 26;
      data[at + 2] = 26;
    }
  return { data, width: size, height: size };
}

/** A folder standing for the build's `models/`: the fixture shipped as `rectangles` 1.0.0. */
export function bundledModels() {
  const dir = mkdtempSync(join(tmpdir(), 'bundled-models-'));
  copyFileSync(`${FIXTURE}.onnx`, join(dir, 'rectangles.onnx'));
  copyFileSync(`${FIXTURE}.json`, join(dir, 'rectangles.json'));
  return dir;
}

/**
 * A tenant on a real cloud, with an admin's token and the store's appliance enrolled in the
 * device registry (its id is the edge id; its sync credential downloads models).
 */
export async function cloudTenant(
  app: FastifyInstance,
  services: CloudServices,
  options: { slug?: string; host: string },
) {
  const slug = options.slug ?? 'acme';
  const { tenant, location } = await seedTenant(services, slug);
  await services.tenancy.addUser(tenant.id, {
    email: `admin@${slug}.test`,
    password: 'correct-horse-battery',
    roles: ['tenant_admin'],
  });
  const { access_token } = await loginTokens(app, {
    email: `admin@${slug}.test`,
    password: 'correct-horse-battery',
  });
  const device = await services.devices.register(tenant.id, {
    location_id: location.id,
    device_type: 'appliance',
    name: 'Store appliance',
    serial_number: `APL-${slug}`,
  });
  const enrolled = await services.devices.enrol({
    enrollment_token: device.enrollment_token,
    csr: (await deviceKey()).csr,
  });
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
    const binary = Buffer.isBuffer(payload);
    const response = await app.inject({
      method,
      url,
      // The host the appliance reaches the cloud by: the download URLs the cloud hands out name it.
      headers: {
        host: options.host,
        ...bearer(access_token),
        ...(binary ? { 'content-type': 'application/octet-stream' } : {}),
      },
      ...(payload === undefined ? {} : { payload: payload as Buffer }),
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json().data;
  };
  /** Registers and uploads a version of `rectangles` with these bytes (the fixture's by default). */
  async function publish(version: string, bytes: Buffer = fixtureBytes) {
    await call('POST', '/v1/vision/models/rectangles/versions', {
      ...fixtureManifest,
      version,
      sha256: sha256(bytes),
    });
    await call('PUT', `/v1/vision/models/rectangles/versions/${version}/file`, bytes);
  }
  /** The payload of the `models_sync` command the cloud queues for these versions. */
  async function syncPayload(versions: string[]) {
    const accepted = await call('POST', `/v1/vision/edge/${device.id}/models/sync`, {
      models: versions.map((version) => ({ model_id: 'rectangles', version })),
    });
    return { commandId: accepted.command_id as string, payload: { models: accepted.models } };
  }
  return {
    tenantId: tenant.id,
    edgeId: device.id,
    credential: enrolled.sync_credential!,
    call,
    publish,
    syncPayload,
  };
}
