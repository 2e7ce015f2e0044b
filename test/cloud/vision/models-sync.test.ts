import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { deviceKey, expectError, expectOk } from '../devices/device-client.ts';

const FIXTURE = join(import.meta.dirname, '../../fixtures/vision/rectangles');
const onnx = readFileSync(`${FIXTURE}.onnx`);
const fixtureManifest = JSON.parse(readFileSync(`${FIXTURE}.json`, 'utf8')) as Record<string, unknown>;
const sha256 = createHash('sha256').update(onnx).digest('hex');
const PASSWORD = 'correct-horse-battery';

type Call = (
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  payload?: unknown,
) => Promise<LightMyRequestResponse>;

function caller(cloud: TestCloud, token: string): Call {
  return (method, url, payload) =>
    cloud.app.inject({
      method,
      url,
      headers: {
        ...bearer(token),
        ...(Buffer.isBuffer(payload) ? { 'content-type': 'application/octet-stream' } : {}),
      },
      ...(payload === undefined ? {} : { payload: payload as Buffer }),
    });
}

async function signedIn(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  await cloud.services.tenancy.addUser(tenantId, { email, password: PASSWORD, roles });
  return caller(cloud, (await loginTokens(cloud.app, { email, password: PASSWORD })).access_token);
}

async function register(
  cloud: TestCloud,
  tenantId: string,
  locationId: string,
  type: string,
  serial: string,
) {
  return cloud.services.devices.register(tenantId, {
    location_id: locationId,
    device_type: type as 'appliance',
    name: `${type} ${serial}`,
    serial_number: serial,
  });
}

async function enrolled(
  cloud: TestCloud,
  tenantId: string,
  locationId: string,
  type: string,
  serial: string,
) {
  const device = await register(cloud, tenantId, locationId, type, serial);
  await cloud.services.devices.enrol({
    enrollment_token: device.enrollment_token,
    csr: (await deviceKey()).csr,
  });
  return device.id;
}

const syncOf = (edgeId: string) => `/v1/vision/edge/${edgeId}/models/sync`;

let tenants = 0;

/**
 * A tenant of its own for each test: what a test publishes and deploys is the whole tenant's (a sync
 * without a body sends every deploy version), so one test's models would change what the next one
 * is sent. Its store's appliance is an enrolled MDM device; beside it a KDS, an appliance not yet
 * enrolled and a sync-only appliance, none of which the cloud can send a model to.
 */
async function alphaTenant(cloud: TestCloud) {
  const slug = `alpha-${++tenants}`;
  const { tenant, location } = await seedTenant(cloud.services, slug);
  return {
    tenantId: tenant.id,
    adminA: await signedIn(cloud, tenant.id, `admin@${slug}.test`, ['tenant_admin']),
    managerA: await signedIn(cloud, tenant.id, `manager@${slug}.test`, ['manager']),
    edgeA: await enrolled(cloud, tenant.id, location.id, 'appliance', `APL-${slug}`),
    kds: await enrolled(cloud, tenant.id, location.id, 'kds', `KDS-${slug}`),
    pending: (await register(cloud, tenant.id, location.id, 'appliance', `APL-PENDING-${slug}`)).id,
    syncOnly: (await cloud.services.sync.provisionAppliance(tenant.id, { location_id: location.id })).id,
  };
}

describe.each(backends)('model syncs to edge appliances on %s', (backend) => {
  let cloud: TestCloud;
  let tenantA: string;
  let adminA: Call;
  let managerA: Call;
  let adminB: Call;
  let edgeA: string;
  let edgeB: string;
  let kds: string;
  let pending: string;
  let syncOnly: string;

  // The cloud and the other tenant, whose edge and models no test changes, are built once.
  beforeAll(async () => {
    cloud = await createTestCloud(backend, {
      config: { rateLimit: false, publicUrl: 'https://cloud.example.com/base/' },
    });
    const b = await seedTenant(cloud.services, 'bravo');
    adminB = await signedIn(cloud, b.tenant.id, 'admin@bravo.test', ['tenant_admin']);
    edgeB = await enrolled(cloud, b.tenant.id, b.location.id, 'appliance', 'APL-B');
  });
  afterAll(() => cloud.close());

  beforeEach(async () => {
    ({ tenantId: tenantA, adminA, managerA, edgeA, kds, pending, syncOnly } = await alphaTenant(cloud));
  });

  const publish = async (admin: Call, model: string, version: string, deploy: boolean) => {
    const manifest = { ...fixtureManifest, name: model, version, sha256 };
    expectOk(await admin('POST', `/v1/vision/models/${model}/versions`, manifest), 201);
    expectOk(await admin('PUT', `/v1/vision/models/${model}/versions/${version}/file`, onnx));
    if (deploy) expectOk(await admin('POST', `/v1/vision/models/${model}/versions/${version}/deploy`));
  };
  /** The tenant's models as an admin leaves them: `rectangles` 1.0.0 deployed, `squares` 0.1.0 not. */
  const publishModels = async () => {
    await publish(adminA, 'rectangles', '1.0.0', true);
    await publish(adminA, 'squares', '0.1.0', false);
  };

  it('refuses edges that cannot take it, and syncs with nothing to send', async () => {
    expectError(await adminA('POST', syncOf(edgeA)), 409, 'NOTHING_TO_SYNC');
    expectError(await adminA('POST', syncOf('00000000-0000-7000-8000-000000000000')), 404, 'EDGE_NOT_FOUND');
    const notManaged = [kds, pending, syncOnly];
    for (const edge of notManaged) expectError(await adminA('POST', syncOf(edge)), 409, 'EDGE_NOT_MANAGED');
  });

  it('sends the deploy versions by default, with absolute download URLs, digests and manifests', async () => {
    await publishModels();
    const accepted = expectOk(await adminA('POST', syncOf(edgeA)), 202);
    expect(accepted).toEqual({
      command_id: expect.any(String),
      edge_id: edgeA,
      status: 'pending',
      expires_at: expect.any(String),
      models: [
        {
          name: 'rectangles',
          version: '1.0.0',
          sha256,
          size: onnx.length,
          url: 'https://cloud.example.com/base/v1/vision/models/rectangles/versions/1.0.0/file',
          manifest: { ...fixtureManifest, sha256 },
        },
      ],
    });
    // It is the registry's command for the appliance, for the fleet link to carry.
    const [command] = await cloud.services.devices.commandsFor(tenantA, { deviceId: edgeA, limit: 1 });
    expect(command).toMatchObject({
      command_id: accepted.command_id,
      kind: 'models_sync',
      state: 'queued',
      payload: { models: accepted.models },
    });
    const state = expectOk(await managerA('GET', `${syncOf(edgeA)}/${accepted.command_id}`));
    expect(state).toMatchObject({
      command_id: accepted.command_id,
      status: 'pending',
      progress: null,
      models: [{ model_id: 'rectangles', version: '1.0.0', status: 'pending', reason: null }],
    });
  });

  it('names models and versions, and refuses what cannot be sent', async () => {
    await publishModels();
    const named = expectOk(
      await adminA('POST', syncOf(edgeA), {
        models: [{ model_id: 'squares', version: '0.1.0' }, { model_id: 'rectangles' }],
      }),
      202,
    );
    expect(named.models.map((m: { name: string; version: string }) => `${m.name}@${m.version}`)).toEqual([
      'squares@0.1.0',
      'rectangles@1.0.0',
    ]);
    expectError(
      await adminA('POST', syncOf(edgeA), { models: [{ model_id: 'squares' }] }),
      409,
      'NO_DEPLOY_VERSION',
    );
    expectError(
      await adminA('POST', syncOf(edgeA), { models: [{ model_id: 'nothing' }] }),
      404,
      'MODEL_NOT_FOUND',
    );
    expectError(
      await adminA('POST', syncOf(edgeA), { models: [{ model_id: 'squares', version: '9.9.9' }] }),
      404,
      'MODEL_VERSION_NOT_FOUND',
    );
    const manifest = { ...fixtureManifest, name: 'squares', version: '0.2.0', sha256 };
    expectOk(await adminA('POST', '/v1/vision/models/squares/versions', manifest), 201);
    expectError(
      await adminA('POST', syncOf(edgeA), { models: [{ model_id: 'squares', version: '0.2.0' }] }),
      409,
      'MODEL_FILE_MISSING',
    );
    expectError(
      await adminA('POST', syncOf(edgeA), { models: [{ model_id: 'squares' }, { model_id: 'squares' }] }),
      400,
      'INVALID_REQUEST',
    );
    expectError(await adminA('POST', syncOf(edgeA), { models: [], extra: 1 }), 400, 'INVALID_REQUEST');
    expectError(await managerA('POST', syncOf(edgeA)), 403, 'FORBIDDEN');
  });

  it('follows the appliance’s answers: progress, then each model’s result', async () => {
    await publishModels();
    const accepted = expectOk(
      await adminA('POST', syncOf(edgeA), {
        models: [{ model_id: 'squares', version: '0.1.0' }, { model_id: 'rectangles' }],
      }),
      202,
    );
    const id = accepted.command_id as string;
    const devices = cloud.services.devices;
    const read = async () => expectOk(await managerA('GET', `${syncOf(edgeA)}/${id}`));
    await devices.updateCommand(tenantA, id, { state: 'sent' });
    expect(await read()).toMatchObject({ status: 'pending' });
    await devices.updateCommand(tenantA, id, { state: 'acknowledged', result: { progress: 0.35 } });
    expect(await read()).toMatchObject({ status: 'in_progress', progress: 0.35 });
    await devices.updateCommand(tenantA, id, {
      state: 'succeeded',
      result: {
        models: [
          { name: 'squares', version: '0.1.0', status: 'installed' },
          {
            name: 'rectangles',
            version: '1.0.0',
            status: 'failed',
            reason: 'the model cannot run: bad graph',
          },
        ],
      },
    });
    expect(await read()).toMatchObject({
      status: 'partially_failed',
      progress: 1,
      models: [
        { model_id: 'squares', version: '0.1.0', status: 'installed', reason: null },
        {
          model_id: 'rectangles',
          version: '1.0.0',
          status: 'failed',
          reason: 'the model cannot run: bad graph',
        },
      ],
    });

    const refused = expectOk(await adminA('POST', syncOf(edgeA)), 202).command_id as string;
    await devices.updateCommand(tenantA, refused, {
      state: 'failed',
      result: { reason: 'this appliance runs no camera pipeline' },
    });
    expect(expectOk(await managerA('GET', `${syncOf(edgeA)}/${refused}`))).toMatchObject({
      status: 'failed',
      reason: 'this appliance runs no camera pipeline',
      models: [
        { model_id: 'rectangles', status: 'failed', reason: 'this appliance runs no camera pipeline' },
      ],
    });
  });

  it('keeps every tenant’s edges, models and syncs to itself', async () => {
    await publishModels();
    const accepted = expectOk(await adminA('POST', syncOf(edgeA)), 202);
    expectError(await adminB('GET', `${syncOf(edgeA)}/${accepted.command_id}`), 404, 'MODEL_SYNC_NOT_FOUND');
    expectError(await adminB('POST', syncOf(edgeA)), 404, 'EDGE_NOT_FOUND');
    // B's own edge cannot be sent A's model, nor A's edge B's.
    expectError(
      await adminB('POST', syncOf(edgeB), { models: [{ model_id: 'rectangles' }] }),
      404,
      'MODEL_NOT_FOUND',
    );
    expectError(await adminA('GET', `${syncOf(edgeB)}/${accepted.command_id}`), 404, 'MODEL_SYNC_NOT_FOUND');
    // A sync is found under its own edge only.
    expectError(await adminA('GET', `${syncOf(kds)}/${accepted.command_id}`), 404, 'MODEL_SYNC_NOT_FOUND');
  });
});
