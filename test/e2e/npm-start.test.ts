import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { connectAsync, type IClientOptions } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { deviceTopic } from '../../shared/mqtt/topics.ts';
import { deviceKey } from '../cloud/devices/device-client.ts';
import { createReceiver, type Receiver } from '../support/webhooks.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

const post = async (url: string, body: unknown, token?: string) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

describe('npm start', () => {
  let dataDir = '';
  let child: ChildProcess | undefined;
  // A failed assertion must not leave the whole system running after the test.
  const receivers: Receiver[] = [];
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  it('runs the cloud and the demo store with working demo logins, and stops cleanly', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
    // node itself with tsx's loader, so SIGTERM reaches the script rather than a wrapper.
    const system = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, CLOUD_PORT: '0', APPLIANCE_PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = system;
    let printed = '';
    const chunks: string[] = [];
    const urls = await new Promise<{ cloud: string; store: string; mqtt: string; mqtts: string }>(
      (resolve, reject) => {
        system.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${printed}`)));
        system.stdout!.on('data', (chunk: Buffer) => {
          chunks.push(chunk.toString());
          printed += chunk.toString();
          const cloud = /Cloud gateway\s+(http:\S+)/.exec(printed)?.[1];
          const store = /Demo store\s+(http:\S+)/.exec(printed)?.[1];
          const mqtt = /Store MQTT\s+(mqtt:\S+)/.exec(printed)?.[1];
          const mqtts = /Store MQTTS\s+(mqtts:\S+)/.exec(printed)?.[1];
          if (cloud && store && mqtt && mqtts) resolve({ cloud, store, mqtt, mqtts });
        });
      },
    );
    // The banner comes once everything is up, in one piece: no log line lands inside it.
    const banner = chunks.find((chunk) => chunk.includes('Cloud gateway')) ?? '';
    for (const line of [
      'Edge router',
      'Demo store',
      'Store kiosk',
      'Fleet console',
      'Store MQTTS',
      'Fleet broker',
      'Try, at the store:',
    ])
      expect(banner, line).toContain(line);
    expect(banner).toMatch(/drive-thru\/status -H "authorization: Bearer <access_token>"\n/);
    expect(banner).not.toMatch(/^\{/m);
    // The enrolled demo appliance joins the fleet over TLS with its certificate.
    expect(printed).toMatch(/Fleet broker\s+mqtts:\/\/\S+/);
    // The cloud's root says where to go next.
    const front = (await (
      await fetch(`${urls.cloud}/`, { headers: { accept: 'application/json' } })
    ).json()) as {
      data: { links: Record<string, string>; areas: Array<{ name: string; paths: string[] }> };
    };
    expect(front.data.links).toMatchObject({ docs: '/docs', openapi: '/openapi.json', health: '/health' });
    expect(front.data.areas).toContainEqual({ name: 'sync', paths: ['/v1/sync'] });
    const browser = await fetch(`${urls.cloud}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect([browser.status, browser.headers.get('location')]).toEqual([302, '/docs']);
    // The operator UI is built and served by the store's appliance.
    expect(printed).toMatch(/Store kiosk\s+http:\S+\/kiosk\//);
    const kiosk = await fetch(`${urls.store}/kiosk/`);
    expect(kiosk.status).toBe(200);
    expect(await kiosk.text()).toContain('<div id="app">');

    const admin = await post(`${urls.cloud}/v1/auth/login`, {
      email: 'admin@demo.test',
      password: 'demo-admin-password',
    });
    expect(admin.json.status).toMatchObject({ type: 'success' });
    // The fleet console is built and served, and the demo admin signs in there as its page does:
    // the refresh token comes back as an http-only cookie, not in the body.
    expect(printed).toMatch(
      /Fleet console\s+http:\S+\/console\/\s+\(sign in as admin@demo.test \/ demo-admin-password\)/,
    );
    const consolePage = await fetch(`${urls.cloud}/console/`);
    expect(consolePage.status).toBe(200);
    expect(consolePage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const consoleLogin = await fetch(`${urls.cloud}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-refresh-token-transport': 'cookie' },
      body: JSON.stringify({ email: 'admin@demo.test', password: 'demo-admin-password' }),
    });
    expect(consoleLogin.headers.get('set-cookie')).toMatch(
      /^refresh_token=[^;]+;.*HttpOnly.*SameSite=Strict/i,
    );
    expect(((await consoleLogin.json()) as { status: object }).status).not.toHaveProperty('refresh_token');

    // An integrator subscribes to the store's orders: they reach its receiver, signed.
    const adminAccess = (admin.json.status as { access_token: string }).access_token;
    const receiver = await createReceiver();
    receivers.push(receiver);
    const webhook = await post(
      `${urls.cloud}/api/v1/webhooks`,
      { url: receiver.url('/orders'), events: ['order.created'] },
      adminAccess,
    );
    expect(webhook.status, JSON.stringify(webhook.json)).toBe(201);
    const staff = await post(`${urls.store}/v1/auth/login/pin`, { identifier: 'staff', pin: '123456' });
    const token = (staff.json.status as { access_token: string }).access_token;
    const menu = (await (
      await fetch(`${urls.store}/v1/commerce/menu/items`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      data: Array<{ id: string; name: string }>;
    };
    expect(menu.data.map((item) => item.name)).toContain('Classic Burger');
    const order = await post(
      `${urls.store}/v1/commerce/orders`,
      { order_type: 'dine_in', items: [{ menu_item_id: menu.data[0]!.id, quantity: 1 }] },
      token,
    );
    expect(order.status).toBe(201);

    // The store syncs with the cloud: the order reaches it within moments, nothing left queued.
    const orderId = (order.json.data as { id: string }).id;
    const adminToken = (admin.json.status as { access_token: string }).access_token;
    const locations = (await (
      await fetch(`${urls.cloud}/v1/platform/locations`, {
        headers: { authorization: `Bearer ${adminToken}` },
      })
    ).json()) as { data: Array<{ id: string }> };
    const statusUrl = `${urls.cloud}/v1/sync/status/${locations.data[0]!.id}`;
    const deadline = Date.now() + 15_000;
    let synced: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      const store = (await (
        await fetch(`${urls.store}/v1/sync/status`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { data: Record<string, unknown> };
      synced = store.data;
      if (synced.online === true && synced.queue_depth === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(synced).toMatchObject({ configured: true, online: true, queue_depth: 0, rejected: 0 });
    const cloudStatus = (await (
      await fetch(statusUrl, { headers: { authorization: `Bearer ${adminToken}` } })
    ).json()) as { data: Record<string, unknown> };
    expect(cloudStatus.data, JSON.stringify(cloudStatus.data)).toMatchObject({
      online: true,
      queue_depth: 0,
    });
    expect(cloudStatus.data.changes_24h).toBeGreaterThan(0);
    // The console's Stores screen reads the same store as online.
    const fleet = (await (
      await fetch(`${urls.cloud}/v1/fleet/stores`, { headers: { authorization: `Bearer ${adminToken}` } })
    ).json()) as { data: Array<{ name: string; online: boolean }> };
    expect(fleet.data).toContainEqual(expect.objectContaining({ name: 'Demo Store 1', online: true }));

    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(1);
    const delivered = receiver.received[0]!;
    expect(JSON.parse(delivered.body)).toMatchObject({ event: 'order.created', data: { order_id: orderId } });
    const signed = createHmac('sha256', webhook.json.secret as string)
      .update(`${delivered.headers['x-service-timestamp']}.${delivered.body}`)
      .digest('hex');
    expect(delivered.headers['x-service-signature']).toBe(`sha256=${signed}`);

    // A sensor on the store's broker shows on the store's device board, its reading with it.
    const locationId = locations.data[0]!.id;
    const fridge = await connectAsync(urls.mqtt, { clientId: 'fridge-1', reconnectPeriod: 0 });
    const telemetry = deviceTopic({
      deviceType: 'sensor',
      locationId,
      deviceId: 'fridge-1',
      channel: 'telemetry',
    });
    await fridge.publishAsync(telemetry, JSON.stringify({ temperature_c: 3.5 }), { qos: 1 });
    await expect
      .poll(
        async () => {
          const board = (await (
            await fetch(`${urls.store}/v1/devices`, { headers: { authorization: `Bearer ${token}` } })
          ).json()) as { data: Array<Record<string, unknown>> };
          return board.data[0];
        },
        { timeout: 5000 },
      )
      .toMatchObject({ id: 'fridge-1', status: 'online', last_telemetry: { temperature_c: 3.5 } });
    await fridge.endAsync();

    // A device registered in the cloud enrols with a key made on it, and talks to the store's
    // broker over TLS: the broker shows the certificate the appliance enrolled for, from the same CA.
    const registered = await post(
      `${urls.cloud}/v1/mdm/devices`,
      { location_id: locationId, device_type: 'sensor', name: 'Walk-in fridge', serial_number: 'FRIDGE-2' },
      adminAccess,
    );
    expect(registered.status, JSON.stringify(registered.json)).toBe(201);
    const device = registered.json.data as { id: string; enrollment_token: string };
    const key = await deviceKey('CN=walk-in fridge');
    const enrolled = await post(`${urls.cloud}/v1/mdm/enroll`, {
      enrollment_token: device.enrollment_token,
      csr: key.csr,
    });
    const issued = enrolled.json.data as { certificate: string; ca_certificate: string };
    let serverUri = '';
    const tlsOptions: IClientOptions & Pick<ConnectionOptions, 'checkServerIdentity'> = {
      clientId: device.id,
      key: key.privateKey.export({ type: 'pkcs8', format: 'pem' }),
      cert: issued.certificate,
      ca: issued.ca_certificate,
      reconnectPeriod: 0,
      // Devices know the appliance by the identity its certificate carries, not by a host name.
      checkServerIdentity: (_host, certificate) => {
        serverUri = certificate.subjectaltname ?? '';
        return undefined;
      },
    };
    const sensor = await connectAsync(urls.mqtts, tlsOptions);
    expect(serverUri).toMatch(new RegExp(`URI:urn:edge:device:appliance:${locationId}:`));
    await sensor.publishAsync(
      deviceTopic({ deviceType: 'sensor', locationId, deviceId: device.id, channel: 'status' }),
      JSON.stringify({ status: 'online', firmware: '2.1.0' }),
      { qos: 0, retain: true },
    );
    // The store's broker saw it; sync carries that to the cloud's registry.
    await expect
      .poll(
        async () =>
          (
            (await (
              await fetch(`${urls.cloud}/v1/mdm/devices/${device.id}`, {
                headers: { authorization: `Bearer ${adminAccess}` },
              })
            ).json()) as { data: Record<string, unknown> }
          ).data,
        { timeout: 20_000, interval: 250 },
      )
      .toMatchObject({ state: 'online', firmware_version: '2.1.0' });
    await sensor.endAsync();

    // The demo appliance itself is in the registry, online by its fleet link (over TLS, by its certificate).
    await expect
      .poll(
        async () =>
          (
            (await (
              await fetch(`${urls.cloud}/v1/mdm/devices?device_type=appliance`, {
                headers: { authorization: `Bearer ${adminAccess}` },
              })
            ).json()) as { data: Array<Record<string, unknown>> }
          ).data[0],
        { timeout: 10_000, interval: 250 },
      )
      .toMatchObject({
        serial_number: 'DEMO-APPLIANCE-1',
        state: 'online',
        firmware_version: expect.any(String),
      });

    // The demo cameras play their generated clips through the pipeline, and the cloud sees them.
    const cameras = async (base: string, bearer: string) =>
      (
        (await (
          await fetch(`${base}/api/vision/cameras`, { headers: { authorization: `Bearer ${bearer}` } })
        ).json()) as { data: { cameras: Array<{ id: string; status: string }> } }
      ).data.cameras
        .map((camera) => `${camera.id}:${camera.status}`)
        .sort();
    await expect
      .poll(() => cameras(urls.store, token), { timeout: 60_000, interval: 500 })
      .toEqual(['demo-lane:online', 'demo-pass:online']);
    await expect
      .poll(() => cameras(urls.cloud, adminAccess), { timeout: 20_000, interval: 500 })
      .toEqual(['demo-lane:online', 'demo-pass:online']);

    system.kill('SIGTERM');
    const code = await new Promise((resolve) => system.once('exit', resolve));
    expect(code).toBe(0);
  }, 150_000);
});
