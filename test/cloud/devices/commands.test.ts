import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type DeviceCloud,
  deviceCloud,
  enrolledDevice,
  expectError,
  expectOk,
  registerDevice,
} from './device-client.ts';

describe.each(backends)('device commands on %s', (backend) => {
  let context: DeviceCloud;
  beforeAll(async () => {
    context = await deviceCloud(backend);
  });
  afterAll(() => context.cloud.close());

  const devices = () => context.cloud.services.devices;
  const tenantA = () => context.a.tenant.id;

  it('queues a restart (202), and pressing twice restarts once', async () => {
    const device = await enrolledDevice(context);
    const first = await context.adminA.call('POST', `/v1/mdm/devices/${device.device_id}/restart`);
    const queued = expectOk(first, 202);
    expect(queued).toMatchObject({
      command_id: expect.any(String),
      device_id: device.device_id,
      kind: 'restart',
      state: 'queued',
      expires_at: new Date(context.cloud.clock.now().getTime() + 3_600_000).toISOString(),
    });
    const again = expectOk(
      await context.adminA.call('POST', `/v1/mdm/devices/${device.device_id}/restart`),
      202,
    );
    expect(again.command_id).toBe(queued.command_id);

    // What the fleet link will read and report.
    const waiting = await devices().commandsFor(tenantA(), {
      deviceId: device.device_id,
      states: ['queued'],
      limit: 10,
    });
    expect(waiting.map((command) => command.command_id)).toEqual([queued.command_id]);
    expect(await devices().updateCommand(tenantA(), queued.command_id, { state: 'sent' })).toMatchObject({
      state: 'sent',
      acked_at: null,
    });
    const done = await devices().updateCommand(tenantA(), queued.command_id, {
      state: 'succeeded',
      result: { uptime_s: 3 },
    });
    expect(done).toMatchObject({ state: 'succeeded', result: { uptime_s: 3 }, acked_at: expect.any(String) });
    // An ended command moves no more; another tenant cannot move it at all.
    expect(await devices().updateCommand(tenantA(), queued.command_id, { state: 'failed' })).toBeUndefined();
    expect(
      await devices().updateCommand(context.b.tenant.id, queued.command_id, { state: 'failed' }),
    ).toBeUndefined();

    const next = expectOk(
      await context.adminA.call('POST', `/v1/mdm/devices/${device.device_id}/restart`),
      202,
    );
    expect(next.command_id).not.toBe(queued.command_id);
  });

  it('refuses commands to a device that has not enrolled or is revoked', async () => {
    const pending = await registerDevice(context.adminA, context.a.location.id);
    expectError(
      await context.adminA.call('POST', `/v1/mdm/devices/${pending.id}/restart`),
      409,
      'DEVICE_NOT_ENROLLED',
    );
    const device = await enrolledDevice(context);
    const waiting = await devices().queueCommand(tenantA(), device.device_id, {
      kind: 'settings',
      payload: { fps: 5 },
    });
    expectOk(await context.adminA.call('POST', `/v1/mdm/devices/${device.device_id}/revoke`, {}));
    expectError(
      await context.adminA.call('POST', `/v1/mdm/devices/${device.device_id}/restart`),
      409,
      'DEVICE_REVOKED',
    );
    const [cancelled] = await devices().commandsFor(tenantA(), { deviceId: device.device_id, limit: 1 });
    expect(cancelled).toMatchObject({ command_id: waiting.command_id, state: 'cancelled' });
  });

  it('expires commands that waited too long', async () => {
    const device = await enrolledDevice(context);
    const command = await devices().queueCommand(tenantA(), device.device_id, {
      kind: 'sync_now',
      ttlSeconds: 60,
    });
    context.cloud.clock.advance(61_000);
    const [expired] = await devices().commandsFor(tenantA(), { deviceId: device.device_id, limit: 1 });
    expect(expired).toMatchObject({ command_id: command.command_id, state: 'expired' });
    expect(await devices().updateCommand(tenantA(), command.command_id, { state: 'sent' })).toBeUndefined();
  });

  it('reports the latest update and cancels it until it ends, telling a device that holds it', async () => {
    const device = await enrolledDevice(context);
    const status = (id = device.device_id) =>
      context.managerA.call('GET', `/v1/mdm/devices/${id}/updates/status`);
    const cancel = () => context.adminA.call('POST', `/v1/mdm/devices/${device.device_id}/updates/cancel`);
    expectError(await status(), 404, 'NO_UPDATE');
    expectError(await cancel(), 404, 'NO_UPDATE');

    const older = await devices().queueCommand(tenantA(), device.device_id, {
      kind: 'update',
      payload: { version: '1.1.0' },
    });
    const newer = await devices().queueCommand(tenantA(), device.device_id, {
      kind: 'update',
      payload: { version: '1.2.0' },
    });
    expect(expectOk(await status())).toMatchObject({
      command_id: newer.command_id,
      version: '1.2.0',
      state: 'queued',
    });
    // A new update replaces the one still waiting.
    const [, replaced] = await devices().commandsFor(tenantA(), {
      deviceId: device.device_id,
      kind: 'update',
      limit: 2,
    });
    expect(replaced).toMatchObject({ command_id: older.command_id, state: 'cancelled' });

    // Cancelling one never sent sends nothing.
    const cancellations = () =>
      devices().commandsFor(tenantA(), { deviceId: device.device_id, kind: 'cancel_update', limit: 10 });
    expect(await cancellations()).toEqual([]);

    // One the device holds is cancelled at once, and the device is told.
    await devices().updateCommand(tenantA(), newer.command_id, { state: 'sent' });
    expect(expectOk(await cancel())).toMatchObject({ command_id: newer.command_id, state: 'cancelled' });
    expect(await cancellations()).toMatchObject([
      { state: 'queued', payload: { command_id: newer.command_id } },
    ]);
    const refused = expectError(await cancel(), 409, 'UPDATE_NOT_CANCELLABLE');
    expect(refused.message).toContain('cancelled');

    const inProgress = await devices().queueCommand(tenantA(), device.device_id, {
      kind: 'update',
      payload: { version: '1.3.0' },
    });
    await devices().updateCommand(tenantA(), inProgress.command_id, {
      state: 'acknowledged',
      result: { progress: 40 },
    });
    expect(expectOk(await cancel())).toMatchObject({ command_id: inProgress.command_id, state: 'cancelled' });
    expect((await cancellations())[0]).toMatchObject({ payload: { command_id: inProgress.command_id } });
    // The device finished before the cancellation reached it: the registry shows what it did.
    expect(
      await devices().updateCommand(tenantA(), inProgress.command_id, { state: 'failed', result: {} }),
    ).toBeUndefined();
    expect(
      await devices().updateCommand(tenantA(), inProgress.command_id, {
        state: 'succeeded',
        result: { progress: 100 },
      }),
    ).toMatchObject({ state: 'succeeded' });

    const applied = await devices().queueCommand(tenantA(), device.device_id, {
      kind: 'update',
      payload: { version: '1.3.0' },
    });
    await devices().updateCommand(tenantA(), applied.command_id, {
      state: 'succeeded',
      result: { progress: 100 },
    });
    expect(expectError(await cancel(), 409, 'UPDATE_NOT_CANCELLABLE').message).toContain('succeeded');
    expect(expectOk(await status())).toMatchObject({
      state: 'succeeded',
      version: '1.3.0',
      result: { progress: 100 },
    });
  });

  it('finds waiting commands of a store for the fleet link', async () => {
    const device = await enrolledDevice(context);
    const command = await devices().queueCommand(tenantA(), device.device_id, { kind: 'settings' });
    const atStore = await devices().commandsFor(tenantA(), {
      locationId: context.a.location.id,
      states: ['queued'],
      limit: 100,
    });
    expect(atStore.map((row) => row.command_id)).toContain(command.command_id);
    expect(
      await devices().commandsFor(context.b.tenant.id, { locationId: context.a.location.id, limit: 100 }),
    ).toEqual([]);
    await expect(
      devices().queueCommand(context.b.tenant.id, device.device_id, { kind: 'restart' }),
    ).rejects.toMatchObject({
      code: 'DEVICE_NOT_FOUND',
    });
  });
});
