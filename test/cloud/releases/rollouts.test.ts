import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { create as createTar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRolloutConfig } from '../../../cloud/releases/rollouts-config.ts';
import { createCloudServices } from '../../../cloud/services.ts';
import { newId } from '../../../shared/ids.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { deviceBody, deviceKey, PASSWORD } from '../devices/device-client.ts';

const NIGHT = '2026-03-10T03:00:00.000Z'; // a Tuesday, inside the default 02:00–05:00 window in UTC
const NOON = '2026-03-10T12:00:00.000Z';
const OLD = '1.0.0';
const NEW = '2.0.0';

type Method = 'GET' | 'POST';

function expectOk(response: LightMyRequestResponse, status = 200) {
  expect(response.statusCode, response.body).toBe(status);
  return response.json().data;
}

function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Array) },
    meta: { request_id: expect.any(String) },
  });
  return body.error as { code: string; details: Array<{ field: string; message: string }> };
}

/** A release archive as an upload carries it: a tar.gz with release.json at its root. */
async function releaseArchive(version: string) {
  const dir = mkdtempSync(join(tmpdir(), 'release-'));
  try {
    writeFileSync(join(dir, 'release.json'), JSON.stringify({ version, format: 1 }));
    const chunks: Buffer[] = [];
    for await (const chunk of createTar({ gzip: true, cwd: dir }, ['release.json']))
      chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(backends)('rollouts on %s', (backend) => {
  let cloud: TestCloud;
  let dataDir: string;
  let a: Awaited<ReturnType<typeof seedTenant>>;
  let b: Awaited<ReturnType<typeof seedTenant>>;
  const tokens: Record<string, string> = {};
  let releaseA: { id: string; version: string };
  let releaseB: { id: string };
  let storeSeq = 0;

  const call = (who: string, method: Method, url: string, payload?: unknown, headers = {}) =>
    cloud.app.inject({
      method,
      url,
      headers: { ...bearer(tokens[who]!), ...headers },
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    });

  async function signIn(tenantId: string, email: string, roles: string[]) {
    await cloud.services.tenancy.addUser(tenantId, { email, password: PASSWORD, roles });
    return (await loginTokens(cloud.app, { email, password: PASSWORD })).access_token;
  }

  async function upload(who: string, version: string) {
    const response = await cloud.app.inject({
      method: 'POST',
      url: '/v1/mdm/releases',
      headers: { ...bearer(tokens[who]!), 'content-type': 'application/gzip' },
      payload: await releaseArchive(version),
    });
    return expectOk(response, 201) as { id: string; version: string };
  }

  const rollouts = () => cloud.services.rollouts;
  const tick = () => rollouts().engine.runDue();
  const devices = () => cloud.services.devices;

  /** A store of tenant A with an enrolled appliance, online and running OLD unless told otherwise. */
  async function store(options: { timezone?: string; online?: boolean; brandId?: string } = {}) {
    const location = await cloud.services.tenancy.createLocation(a.tenant.id, {
      name: `Rollout store ${++storeSeq}`,
      brand_id: options.brandId ?? a.brand.id,
      region_id: a.region.id,
      timezone: options.timezone ?? 'UTC',
    });
    const registered = expectOk(
      await call(
        'adminA',
        'POST',
        '/v1/mdm/devices',
        deviceBody(location.id, { device_type: 'appliance', firmware_version: OLD }),
      ),
      201,
    );
    const key = await deviceKey();
    expectOk(
      await cloud.app.inject({
        method: 'POST',
        url: '/v1/mdm/enroll',
        payload: { enrollment_token: registered.enrollment_token, csr: key.csr },
      }),
    );
    if (options.online !== false) await presence(registered.id, 'online', OLD);
    return { locationId: location.id, deviceId: registered.id as string };
  }

  /** What the fleet link does with an appliance's retained status. */
  const presence = (deviceId: string, online: 'online' | 'offline', version?: string) =>
    devices().markPresence(a.tenant.id, deviceId, online, cloud.clock.now(), version);

  async function stores(count: number) {
    const made = [];
    for (let index = 0; index < count; index++) made.push(await store());
    return made;
  }

  const create = (body: Record<string, unknown>, who = 'adminA', headers = {}) =>
    call(who, 'POST', '/v1/mdm/rollouts', { release_id: releaseA.id, soak_seconds: 0, ...body }, headers);

  async function started(locationIds: string[], body: Record<string, unknown> = {}) {
    return expectOk(await create({ target: { location_ids: locationIds }, ...body }), 201) as {
      id: string;
      [field: string]: unknown;
    };
  }

  // Read through the service: a test that moves the clock by hours outlives its access tokens.
  const storesOf = async (rolloutId: string, filter: { wave?: number } = {}) =>
    (await rollouts().stores(a.tenant.id, rolloutId, filter, { limit: 500 })).items;
  const rolloutOf = (rolloutId: string) => rollouts().get(a.tenant.id, rolloutId);
  const rolloutIds = async () =>
    (await rollouts().list(a.tenant.id, {}, { limit: 200 })).items.map((rollout) => rollout.id);
  const storeOf = async (rolloutId: string, locationId: string) =>
    (await storesOf(rolloutId)).find((s) => s.location_id === locationId)!;

  /** The appliance's side of an update: acknowledgements as the fleet link records them. */
  const report = (commandId: string, state: 'acknowledged' | 'succeeded' | 'failed', result = {}) =>
    devices().updateCommand(a.tenant.id, commandId, { state, result });

  /** An appliance installs the update, restarts and reports the new version. */
  async function installs(rolloutId: string, s: { locationId: string; deviceId: string }) {
    const { command_id } = await storeOf(rolloutId, s.locationId);
    await report(command_id!, 'acknowledged', { progress: 1 });
    await report(command_id!, 'succeeded', { version: NEW, previous: OLD, restarting: true });
    await presence(s.deviceId, 'online', NEW);
  }

  const eventsOf = async (type: string, rolloutId: string) =>
    (
      await cloud.store.db
        .selectFrom('domain_events')
        .selectAll()
        .where('tenant_id', '=', a.tenant.id)
        .where('type', '=', type)
        .orderBy('id')
        .execute()
    )
      .map((row) => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }))
      .filter((row) => row.data.rollout_id === rolloutId);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rollouts-'));
    cloud = await createTestCloud(backend, {
      config: {
        rateLimit: false,
        dataDir,
        publicUrl: 'http://cloud.test',
        rollouts: { ...loadRolloutConfig({}), runEngine: false, tickMs: 200 },
      },
    });
    cloud.clock.set(NIGHT);
    a = await seedTenant(cloud.services, 'alpha');
    b = await seedTenant(cloud.services, 'bravo');
    tokens.adminA = await signIn(a.tenant.id, 'admin@alpha.test', ['tenant_admin']);
    tokens.managerA = await signIn(a.tenant.id, 'manager@alpha.test', ['manager']);
    tokens.staffA = await signIn(a.tenant.id, 'staff@alpha.test', ['staff']);
    tokens.adminB = await signIn(b.tenant.id, 'admin@bravo.test', ['tenant_admin']);
    releaseA = await upload('adminA', NEW);
    releaseB = await upload('adminB', '9.0.0');
  });

  afterAll(async () => {
    await rollouts().engine.close();
    await cloud.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('plans the default waves over the targeted stores in location order, with its events', async () => {
    const fleet = await stores(12);
    const ids = fleet.map((s) => s.locationId);
    const rollout = expectOk(
      await create({ target: { location_ids: [...ids].reverse() }, waves: undefined }),
      201,
    );
    expect(rollout).toMatchObject({
      state: 'running',
      version: NEW,
      current_wave: 1,
      window: { start: '02:00', end: '05:00' },
      allow_open_hours: false,
      failure_threshold: 0.2,
      stores: 12,
      counts: { queued: 12 },
    });
    // One canary, then 10 % (rounded up: 2 stores reached), then the rest.
    expect(rollout.waves.map((w: { stores: number }) => w.stores)).toEqual([1, 1, 10]);
    expect(rollout.waves[0]).toMatchObject({ wave: 1, count: 1, started_at: NIGHT, finished_at: null });
    expect(rollout.waves[2]).toMatchObject({ wave: 3, percent: 100, started_at: null });
    // location_ids given: their order is the rollout's.
    const listed = await storesOf(rollout.id);
    expect(listed.map((s) => s.location_id)).toEqual([...ids].reverse());
    expect(listed.map((s) => s.wave)).toEqual([1, 2, ...Array(10).fill(3)]);
    expect(listed[0]).toMatchObject({ state: 'queued', attempts: 0, from_version: OLD, to_version: NEW });
    const page = await call('managerA', 'GET', `/v1/mdm/rollouts/${rollout.id}/stores?wave=3&limit=4`);
    expect(expectOk(page).map((s: { location_id: string }) => s.location_id)).toEqual(
      [...ids].reverse().slice(2, 6),
    );
    const cursor = page.json().meta.pagination.next_cursor;
    const next = await call(
      'managerA',
      'GET',
      `/v1/mdm/rollouts/${rollout.id}/stores?wave=3&limit=4&cursor=${cursor}`,
    );
    expect(expectOk(next)).toHaveLength(4);
    expect(expectOk(await call('managerA', 'GET', `/v1/mdm/rollouts/${rollout.id}`))).toEqual(rollout);

    const [start] = await eventsOf('rollout.started', rollout.id);
    expect(start!.data).toMatchObject({
      release_id: releaseA.id,
      version: NEW,
      stores: 12,
      wave_sizes: [1, 1, 10],
    });
    expect(await eventsOf('rollout.wave_started', rollout.id)).toHaveLength(1);

    // By brand: every active store of the brand, by location id.
    const brand = await cloud.services.tenancy.createGroup('brands', a.tenant.id, 'Second brand');
    const branded = [await store({ brandId: brand.id }), await store({ brandId: brand.id })];
    const byBrand = expectOk(
      await create({ target: { brand_ids: [brand.id] }, waves: [{ percent: 100 }] }),
      201,
    );
    expect((await storesOf(byBrand.id)).map((s) => s.location_id)).toEqual(
      branded.map((s) => s.locationId).sort(),
    );
    for (const id of [rollout.id, byBrand.id])
      expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${id}/abort`));
  });

  it('refuses what cannot be rolled out with clear codes, and writes nothing', async () => {
    const [one, two] = await stores(2);
    const target = { location_ids: [one!.locationId, two!.locationId] };
    const before = await rolloutIds();
    const unknownRelease = expectError(
      await create({ target, release_id: '0192f3a4-5b6c-7d8e-9f01-23456789abcd' }),
      400,
      'INVALID_REQUEST',
    );
    expect(unknownRelease.details).toEqual([
      { field: 'body.release_id', message: 'does not exist in this tenant' },
    ]);
    expectError(await create({ target, waves: [{ percent: 50 }, { percent: 20 }] }), 400, 'INVALID_REQUEST');
    expectError(await create({ target, waves: [{ count: 0 }] }), 400, 'INVALID_REQUEST');
    expectError(await create({ target, window: { start: '25:00', end: '05:00' } }), 400, 'INVALID_REQUEST');
    expectError(await create({ target, failure_threshold: 1.5 }), 400, 'INVALID_REQUEST');
    expectError(await create({ target, soak_seconds: 8 * 86_400 }), 400, 'INVALID_REQUEST');
    expectError(await create({ target, surprise: true }), 400, 'INVALID_REQUEST');
    expectError(await create({ target: {} }), 400, 'INVALID_REQUEST');
    const short = expectError(await create({ target, waves: [{ count: 1 }] }), 422, 'INVALID_WAVES');
    expect(short.details[0]!.message).toContain('must reach all 2');
    expectError(await create({ target, waves: [{ count: 2 }, { percent: 100 }] }), 422, 'INVALID_WAVES');
    const brand = await cloud.services.tenancy.createGroup('brands', a.tenant.id, 'Empty brand');
    expectError(await create({ target: { brand_ids: [brand.id] } }), 422, 'EMPTY_TARGET');
    const bare = await cloud.services.tenancy.createLocation(a.tenant.id, {
      name: `Bare ${++storeSeq}`,
      brand_id: a.brand.id,
      region_id: a.region.id,
    });
    expectError(await create({ target: { location_ids: [bare.id] } }), 422, 'EMPTY_TARGET');
    expectError(
      await call('staffA', 'POST', '/v1/mdm/rollouts', { release_id: releaseA.id, target }),
      403,
      'FORBIDDEN',
    );
    expect(await rolloutIds()).toEqual(before);

    // A store already in an unfinished rollout; an Idempotency-Key retry answers the first rollout.
    const headers = { 'idempotency-key': `first-${backend}` };
    const first = expectOk(
      await create({ target: { location_ids: [one!.locationId] } }, 'adminA', headers),
      201,
    );
    const again = expectOk(
      await create({ target: { location_ids: [one!.locationId] } }, 'adminA', headers),
      200,
    );
    expect(again.id).toBe(first.id);
    const taken = expectError(await create({ target }), 409, 'STORES_IN_ANOTHER_ROLLOUT');
    expect(taken.details).toEqual([
      { field: 'body.target', message: `store ${one!.locationId} is in another rollout` },
    ]);
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${first.id}/abort`));
    // Once it ended, the store is free again; a retired release is not.
    const next = expectOk(await create({ target }), 201);
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${next.id}/abort`));
    const old = await upload('adminA', `0.9.${backend}`);
    expectOk(await call('adminA', 'POST', `/v1/mdm/releases/${old.id}/retire`));
    expectError(await create({ target, release_id: old.id }), 409, 'RELEASE_RETIRED');
  });

  it('dispatches only inside the window of the store’s own time, and to an appliance that is online', async () => {
    const utc = await store();
    const tokyo = await store({ timezone: 'Asia/Tokyo' }); // 12:00 in Tokyo at 03:00 UTC
    const away = await store({ online: false });
    const rollout = await started([utc.locationId, tokyo.locationId, away.locationId], {
      waves: [{ percent: 100 }],
    });
    cloud.clock.set(NOON);
    await tick();
    expect((await storesOf(rollout.id)).map((s) => s.state)).toEqual(['queued', 'queued', 'queued']);

    cloud.clock.set(NIGHT);
    await tick();
    const [sent, waiting, offline] = await storesOf(rollout.id);
    expect(sent).toMatchObject({ state: 'scheduled', attempts: 1, command_id: expect.any(String) });
    expect(waiting!.state).toBe('queued');
    expect(offline!.state).toBe('queued');

    // The update command carries the signed manifest; the device's update status names the rollout.
    const status = expectOk(await call('managerA', 'GET', `/v1/mdm/devices/${utc.deviceId}/updates/status`));
    expect(status).toMatchObject({
      command_id: sent!.command_id,
      kind: 'update',
      state: 'queued',
      version: NEW,
      rollout_id: rollout.id,
      payload: { version: NEW, url: expect.stringContaining(`/v1/mdm/releases/${releaseA.id}/artifact`) },
    });
    expect(status.payload.signature).toEqual(expect.any(String));
    // Its command lives until the window closes (05:00), so it never starts later than that.
    expect(status.expires_at).toBe('2026-03-10T05:00:00.000Z');

    // The offline appliance gets its update once it is back, inside its window.
    await presence(away.deviceId, 'online', OLD);
    await tick();
    expect((await storeOf(rollout.id, away.locationId)).state).toBe('scheduled');
    // Tokyo's window opens at 17:00 UTC.
    cloud.clock.set('2026-03-10T17:30:00.000Z');
    await tick();
    expect((await storeOf(rollout.id, tokyo.locationId)).state).toBe('scheduled');
    cloud.clock.set(NIGHT);
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/abort`));
  });

  it('skips a store that is open by its synced hours unless the rollout allows it', async () => {
    const late = await store();
    const week = Object.fromEntries(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [
        day,
        [{ opens: '18:00', closes: '04:00' }],
      ]),
    );
    await cloud.services.sync.writeFromCloud(
      a.tenant.id,
      late.locationId,
      'location_settings',
      late.locationId,
      {
        location_id: late.locationId,
        name: 'Late store',
        timezone: 'UTC',
        currency: 'USD',
        tax_rate_bps: 0,
        business_day_starts_at: '04:00',
        status: 'open',
        hours: JSON.stringify(week),
        updated_at: NIGHT,
      },
    );
    const closed = await started([late.locationId], { waves: [{ percent: 100 }] });
    await tick();
    // Monday's hours run to 04:00 on Tuesday: at 03:00 it is open.
    expect((await storeOf(closed.id, late.locationId)).state).toBe('queued');
    cloud.clock.set('2026-03-10T04:30:00.000Z');
    await tick();
    expect((await storeOf(closed.id, late.locationId)).state).toBe('scheduled');
    cloud.clock.set(NIGHT);
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${closed.id}/abort`));

    const open = await started([late.locationId], { waves: [{ percent: 100 }], allow_open_hours: true });
    await tick();
    expect((await storeOf(open.id, late.locationId)).state).toBe('scheduled');
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${open.id}/abort`));
  });

  it('follows each store to healthy, soaks, moves wave to wave and completes', async () => {
    const fleet = await stores(3);
    const rollout = await started(
      fleet.map((s) => s.locationId),
      { waves: [{ count: 1 }, { percent: 100 }], soak_seconds: 600 },
    );
    await tick();
    const canary = fleet[0]!;
    const { command_id } = await storeOf(rollout.id, canary.locationId);
    await report(command_id!, 'acknowledged', { progress: 0.4 });
    await tick();
    expect(await storeOf(rollout.id, canary.locationId)).toMatchObject({
      state: 'downloading',
      progress: 0.4,
    });
    await report(command_id!, 'acknowledged', { progress: 1 });
    await tick();
    expect((await storeOf(rollout.id, canary.locationId)).state).toBe('installing');
    await report(command_id!, 'succeeded', { version: NEW, previous: OLD, restarting: true });
    await tick();
    // Succeeded, restarting: not healthy until its status shows the new version.
    expect((await storeOf(rollout.id, canary.locationId)).state).toBe('installing');
    await presence(canary.deviceId, 'online', NEW);
    await tick();
    expect((await storeOf(rollout.id, canary.locationId)).state).toBe('healthy');
    const soaking = await rolloutOf(rollout.id);
    expect(soaking).toMatchObject({ current_wave: 1, soak_ends_at: '2026-03-10T03:10:00.000Z' });
    expect((await storesOf(rollout.id, { wave: 2 })).map((s) => s.state)).toEqual(['queued', 'queued']);

    cloud.clock.advance(600_000);
    await tick();
    expect(await rolloutOf(rollout.id)).toMatchObject({ current_wave: 2, soak_ends_at: null });
    await tick();
    for (const s of fleet.slice(1)) await installs(rollout.id, s);
    await tick();
    const done = await rolloutOf(rollout.id);
    expect(done).toMatchObject({
      state: 'completed',
      counts: { healthy: 3 },
      finished_at: expect.any(String),
    });
    const updated = await eventsOf('rollout.store_updated', rollout.id);
    expect(updated.map((e) => e.data.state)).toEqual(['healthy', 'healthy', 'healthy']);
    expect(updated[0]!.location_id).toBe(canary.locationId);
    expect(updated[0]!.data).toMatchObject({ from_version: OLD, to_version: NEW, wave: 1, attempts: 1 });
    expect((await eventsOf('rollout.wave_started', rollout.id)).map((e) => e.data.wave)).toEqual([1, 2]);
    expect(await eventsOf('rollout.completed', rollout.id)).toHaveLength(1);
    // A completed rollout lets its stores go and takes no more actions.
    expectError(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/pause`), 409, 'ROLLOUT_ENDED');
    cloud.clock.set(NIGHT);
  });

  it('halts on the failure threshold with an alert and an event; exclude, then resume carries on', async () => {
    const fleet = await stores(3);
    const rollout = await started(
      fleet.map((s) => s.locationId),
      { waves: [{ count: 1 }, { percent: 100 }] },
    );
    await tick();
    const canary = fleet[0]!;
    const { command_id } = await storeOf(rollout.id, canary.locationId);
    await report(command_id!, 'failed', { reason: 'rolled_back: the new version failed its health check' });
    await tick();
    expect(await storeOf(rollout.id, canary.locationId)).toMatchObject({
      state: 'rolled_back',
      reason: 'the new version failed its health check',
    });
    const halted = await rolloutOf(rollout.id);
    expect(halted.state).toBe('halted');
    expect(halted.halted_reason).toContain('wave 1: 1 of 1 stores failed or rolled back');
    const [event] = await eventsOf('rollout.halted', rollout.id);
    expect(event!.data).toMatchObject({ wave: 1, rolled_back: 1, wave_stores: 1, failure_share: 1 });
    const alert = await cloud.store.db
      .selectFrom('alerts')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .where('id', '=', String(event!.data.alert_id))
      .executeTakeFirstOrThrow();
    expect(alert).toMatchObject({ source: 'rollouts', service: 'releases', status: 'firing' });

    // Halted: nothing new is sent, and it resumes only once the failure is dealt with.
    await tick();
    expect((await storesOf(rollout.id, { wave: 2 })).map((s) => s.state)).toEqual(['queued', 'queued']);
    const refused = expectError(
      await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/resume`),
      409,
      'FAILURES_OVER_THRESHOLD',
    );
    expect(refused.details[0]!.message).toContain(canary.locationId);
    expectError(
      await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/exclude`, {
        location_ids: [b.location.id],
      }),
      422,
      'STORES_NOT_APPLICABLE',
    );
    const excluded = expectOk(
      await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/exclude`, {
        location_ids: [canary.locationId],
      }),
    );
    expect(excluded.counts).toMatchObject({ excluded: 1, rolled_back: 0 });
    const resumed = expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/resume`));
    expect(resumed).toMatchObject({ state: 'running', halted_reason: null });
    expect((await eventsOf('rollout.resumed', rollout.id))[0]!.data).toMatchObject({
      from: 'halted',
      wave: 1,
    });
    const resolved = await cloud.store.db
      .selectFrom('alerts')
      .select('status')
      .where('tenant_id', '=', a.tenant.id)
      .where('id', '=', alert.id)
      .executeTakeFirstOrThrow();
    expect(resolved.status).toBe('resolved');
    await tick();
    expect((await rolloutOf(rollout.id)).current_wave).toBe(2);
    await tick();
    expect((await storesOf(rollout.id, { wave: 2 })).map((s) => s.state)).toEqual(['scheduled', 'scheduled']);
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/abort`));
  });

  it('halts early within a wave, and on max_failures across the rollout', async () => {
    const fleet = await stores(4);
    const rollout = await started(
      fleet.map((s) => s.locationId),
      { waves: [{ percent: 100 }], failure_threshold: 0.25 },
    );
    await tick();
    const [first, second] = await storesOf(rollout.id);
    await report(first!.command_id!, 'failed', { reason: 'failed: the download broke off' });
    await tick();
    expect((await rolloutOf(rollout.id)).state).toBe('running'); // 1 of 4 is not over 0.25
    await report(second!.command_id!, 'failed', { reason: 'refused: the signature does not verify' });
    await tick();
    const halted = await rolloutOf(rollout.id);
    expect(halted).toMatchObject({ state: 'halted', counts: { failed: 2, scheduled: 2 } });
    expect((await storeOf(rollout.id, first!.location_id)).reason).toBe('failed: the download broke off');
    // Retrying the failed stores brings the wave back under the threshold.
    const retried = expectOk(
      await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/retry`, {
        location_ids: [first!.location_id, second!.location_id],
      }),
    );
    expect(retried.counts).toMatchObject({ queued: 2, failed: 0 });
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/resume`));
    await tick();
    expect((await storeOf(rollout.id, first!.location_id)).state).toBe('scheduled');
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/abort`));

    const more = await stores(2);
    const strict = await started(
      more.map((s) => s.locationId),
      { waves: [{ percent: 100 }], failure_threshold: 1, max_failures: 0 },
    );
    await tick();
    const [one] = await storesOf(strict.id);
    await report(one!.command_id!, 'failed', { reason: 'failed: disk full' });
    await tick();
    expect((await rolloutOf(strict.id)).halted_reason).toContain('more than max_failures (0)');
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${strict.id}/abort`));
  });

  it('sends an interrupted update again, up to the attempts allowed, and rolls back a version that does not start', async () => {
    const [crashy, stuck] = await stores(2);
    const rollout = await started([crashy!.locationId, stuck!.locationId], {
      waves: [{ percent: 100 }],
      failure_threshold: 1,
    });
    await tick();
    for (let attempt = 1; attempt <= 3; attempt++) {
      const current = await storeOf(rollout.id, crashy!.locationId);
      expect(current).toMatchObject({ state: 'scheduled', attempts: attempt });
      await report(current.command_id!, 'failed', { reason: 'the appliance stopped while it ran' });
      await tick();
    }
    expect(await storeOf(rollout.id, crashy!.locationId)).toMatchObject({
      state: 'failed',
      attempts: 3,
      reason: 'the appliance stopped while it ran, 3 times',
    });

    const { command_id } = await storeOf(rollout.id, stuck!.locationId);
    await report(command_id!, 'succeeded', { version: NEW, previous: OLD, restarting: true });
    await tick();
    cloud.clock.advance(599_000);
    await tick();
    expect((await storeOf(rollout.id, stuck!.locationId)).state).toBe('installing');
    cloud.clock.advance(2000);
    await tick();
    expect(await storeOf(rollout.id, stuck!.locationId)).toMatchObject({
      state: 'rolled_back',
      reason: 'the new version did not start',
    });
    expect((await rolloutOf(rollout.id)).state).toBe('completed');
    cloud.clock.set(NIGHT);
  });

  it('pauses and aborts: pending commands are cancelled and the stores are free again', async () => {
    const fleet = await stores(3);
    const rollout = await started(
      fleet.map((s) => s.locationId),
      { waves: [{ count: 1 }, { percent: 100 }] },
    );
    const paused = expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/pause`));
    expect(paused.state).toBe('paused');
    expectError(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/pause`), 409, 'ROLLOUT_STATE');
    await tick();
    expect((await storeOf(rollout.id, fleet[0]!.locationId)).state).toBe('queued');
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/resume`));
    await tick();
    const sent = await storeOf(rollout.id, fleet[0]!.locationId);
    expect(sent.state).toBe('scheduled');
    await devices().updateCommand(a.tenant.id, sent.command_id!, { state: 'sent' });

    const aborted = expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/abort`));
    expect(aborted).toMatchObject({ state: 'aborted', counts: { cancelled: 3 } });
    const status = expectOk(
      await call('managerA', 'GET', `/v1/mdm/devices/${fleet[0]!.deviceId}/updates/status`),
    );
    expect(status).toMatchObject({ command_id: sent.command_id, state: 'cancelled', rollout_id: rollout.id });
    // The appliance that held it is told to stop.
    const [told] = await devices().commandsFor(a.tenant.id, {
      deviceId: fleet[0]!.deviceId,
      kind: 'cancel_update',
      limit: 1,
    });
    expect(told!.payload).toEqual({ command_id: sent.command_id });
    expect((await eventsOf('rollout.aborted', rollout.id))[0]!.data).toMatchObject({ cancelled_stores: 3 });
    expectError(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/resume`), 409, 'ROLLOUT_ENDED');
    const again = expectOk(await create({ target: { location_ids: fleet.map((s) => s.locationId) } }), 201);
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${again.id}/abort`));
  });

  it('marks a store cancelled when its update is cancelled on the device', async () => {
    const [only] = await stores(1);
    const rollout = await started([only!.locationId], { waves: [{ percent: 100 }] });
    await tick();
    const cancelled = expectOk(
      await call('adminA', 'POST', `/v1/mdm/devices/${only!.deviceId}/updates/cancel`),
    );
    expect(cancelled).toMatchObject({ state: 'cancelled', rollout_id: rollout.id });
    await tick();
    expect(await storeOf(rollout.id, only!.locationId)).toMatchObject({
      state: 'cancelled',
      reason: 'the update command was cancelled',
    });
    const [event] = await eventsOf('rollout.store_updated', rollout.id);
    expect(event!.data).toMatchObject({ state: 'cancelled', location_id: only!.locationId });
    // Cancelled stores do not count as failures: the rollout completes; a retry would send it again.
    expect((await rolloutOf(rollout.id)).state).toBe('completed');
  });

  it('lets one replica step a rollout at a time', async () => {
    const fleet = await stores(3);
    const rollout = await started(
      fleet.map((s) => s.locationId),
      { waves: [{ percent: 100 }] },
    );
    // A second replica: the cloud's services again, on the same store.
    const other = createCloudServices(cloud.config, { store: cloud.store, clock: cloud.clock, newId });
    await Promise.all([tick(), other.rollouts.engine.runDue(), tick()]);
    for (const s of fleet) {
      const updates = await devices().commandsFor(a.tenant.id, {
        deviceId: s.deviceId,
        kind: 'update',
        limit: 10,
      });
      expect(updates).toHaveLength(1);
    }
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/abort`));
  });

  it('runs on its own timer once started, and stops', async () => {
    const [only] = await stores(1);
    const rollout = await started([only!.locationId], { waves: [{ percent: 100 }] });
    rollouts().engine.start();
    await expect
      .poll(async () => (await storeOf(rollout.id, only!.locationId)).state, { timeout: 5000, interval: 100 })
      .toBe('scheduled');
    await rollouts().engine.close();
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/abort`));
  });

  it('keeps tenants apart', async () => {
    const [mine] = await stores(1);
    const rollout = await started([mine!.locationId]);
    for (const [method, path, body] of [
      ['GET', `/v1/mdm/rollouts/${rollout.id}`, undefined],
      ['GET', `/v1/mdm/rollouts/${rollout.id}/stores`, undefined],
      ['POST', `/v1/mdm/rollouts/${rollout.id}/pause`, undefined],
      ['POST', `/v1/mdm/rollouts/${rollout.id}/resume`, undefined],
      ['POST', `/v1/mdm/rollouts/${rollout.id}/abort`, undefined],
      ['POST', `/v1/mdm/rollouts/${rollout.id}/exclude`, { location_ids: [mine!.locationId] }],
      ['POST', `/v1/mdm/rollouts/${rollout.id}/retry`, {}],
    ] as const)
      expectError(await call('adminB', method, path, body), 404, 'ROLLOUT_NOT_FOUND');
    expect(expectOk(await call('adminB', 'GET', '/v1/mdm/rollouts'))).toEqual([]);
    // B cannot roll out A's release, nor to A's stores; A cannot roll out B's release.
    expectError(
      await call('adminB', 'POST', '/v1/mdm/rollouts', { release_id: releaseA.id, target: { all: true } }),
      400,
      'INVALID_REQUEST',
    );
    const bTarget = expectError(
      await call('adminB', 'POST', '/v1/mdm/rollouts', {
        release_id: releaseB.id,
        target: { location_ids: [mine!.locationId] },
      }),
      400,
      'INVALID_REQUEST',
    );
    expect(bTarget.details[0]!.field).toBe('body.target.location_ids[0]');
    expectError(await create({ target: { all: true }, release_id: releaseB.id }), 400, 'INVALID_REQUEST');
    // The service, asked for A's rollout as B, finds nothing either.
    await expect(rollouts().get(b.tenant.id, rollout.id)).rejects.toMatchObject({
      code: 'ROLLOUT_NOT_FOUND',
    });
    expectOk(await call('adminA', 'POST', `/v1/mdm/rollouts/${rollout.id}/abort`));
    const listed = expectOk(await call('managerA', 'GET', '/v1/mdm/rollouts?state=aborted&limit=2'));
    expect(listed).toHaveLength(2);
  });
});
