import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadApplianceConfig } from '../../appliance/config.ts';
import { enrolIfNeeded } from '../../appliance/identity/index.ts';
import { type RunningAppliance, startAppliance } from '../../appliance/main.ts';
import { type Fleet, startFleet } from '../../cloud/flows/index.ts';
import { newId } from '../../shared/ids.ts';
import { deviceTopic, storeChannelFilter } from '../../shared/mqtt/topics.ts';
import { deviceKey } from '../cloud/devices/device-client.ts';
import { startChaosProxy } from '../support/chaos-proxy.ts';
import { bearer, createTestCloud, seedTenant, signedInUser, type TestCloud } from '../support/cloud.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

/** The promise, or a failure naming `what` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Resolves (with when) the moment the client's connection closes. */
const closeOf = (client: MqttClient) =>
  new Promise<number>((resolve) => {
    if (!client.connected) return resolve(performance.now());
    client.once('close', () => resolve(performance.now()));
  });

function capturedLog() {
  const lines: Array<{ msg: string; [field: string]: unknown }> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, find: (msg: string) => lines.filter((line) => line.msg === msg) };
}

const REVOCATION_DEADLINE_MS = 10_000;

// The appliance's server certificate names the appliance, not 127.0.0.1; its chain is still checked.
const anyHostName = { checkServerIdentity: () => undefined } as IClientOptions;

/**
 * The whole path for real: a cloud gateway listening on a free port with its fleet link (the
 * embedded broker), an appliance enrolled by the cloud's CA and started as main.ts starts it, two
 * kitchen screens with certificates from the same CA on the store broker's TLS listener, and a
 * development client on the plain listener reading their telemetry.
 */
describe('a device certificate the cloud revokes, at the store', () => {
  const closers: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function setUp() {
    const cloud: TestCloud = await createTestCloud('sqlite', { config: { rateLimit: false } });
    closers.push(() => cloud.close());
    const cloudUrl = await cloud.app.listen({ port: 0, host: '127.0.0.1' });
    const { tenant, location } = await seedTenant(cloud.services, 'acme');
    const admin = await signedInUser(cloud, tenant.id, 'admin@acme.test', ['tenant_admin']);
    const cloudLog = capturedLog();
    const fleetConfig = { ...cloud.config.fleet, url: undefined, host: '127.0.0.1', port: 0, tlsPort: 0 };
    const fleetDeps = { services: cloud.services, clock: cloud.clock, newId, log: cloudLog.log };
    let fleet: Fleet = await startFleet(fleetConfig, fleetDeps);
    closers.push(() => fleet.close());
    const fleetPort = Number(new URL(fleet.url).port);
    // The store's uplink to the fleet broker, which a test can cut.
    const uplink: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port: fleetPort });
    closers.push(() => uplink.close());

    const applianceDir = mkdtempSync(join(tmpdir(), 'revocation-appliance-'));
    closers.push(() => rmSync(applianceDir, { recursive: true, force: true }));
    const registered = await cloud.services.devices.register(tenant.id, {
      location_id: location.id,
      device_type: 'appliance',
      name: 'Store 1 appliance',
      serial_number: 'APL-1',
    });
    const silent = pino({ level: 'silent' });
    await enrolIfNeeded({
      dataDir: applianceDir,
      cloudUrl,
      enrollmentToken: registered.enrollment_token,
      log: silent,
    });

    const screen = async (serialNumber: string) => {
      const device = await cloud.services.devices.register(tenant.id, {
        location_id: location.id,
        device_type: 'kds',
        name: serialNumber,
        serial_number: serialNumber,
      });
      const key = await deviceKey();
      const issued = await cloud.services.devices.enrol({
        enrollment_token: device.enrollment_token,
        csr: key.csr,
      });
      return {
        id: device.id,
        serial: issued.serial,
        tls: {
          key: key.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
          cert: issued.certificate,
          ca: issued.ca_certificate,
        },
      };
    };
    const stolen = await screen('KDS-STOLEN');
    const fine = await screen('KDS-FINE');

    let appliance: RunningAppliance | undefined;
    const applianceLog = capturedLog();
    /** Starts the appliance (again), its fleet link through the uplink, its cloud at `cloudVia`. */
    async function startStore(cloudVia = cloudUrl) {
      const config = loadApplianceConfig({
        TENANT_ID: tenant.id,
        LOCATION_ID: location.id,
        APPLIANCE_DATA_DIR: applianceDir,
        APPLIANCE_PORT: '0',
        APPLIANCE_HOST: '127.0.0.1',
        APPLIANCE_MQTT_TLS_PORT: '0',
        APPLIANCE_MQTT_PORT: '0',
        APPLIANCE_VISION: 'off',
        CLOUD_URL: cloudVia,
        APPLIANCE_FLEET_URL: uplink.url('mqtt'),
        LOG_LEVEL: 'silent',
      });
      const started = await startAppliance(config, applianceLog.log);
      appliance = started;
      closers.push(() => started.stop());
      return started;
    }

    /** A screen on the store broker's TLS listener, with its own certificate. */
    const connectScreen = (device: typeof stolen) =>
      connectAsync(
        `mqtts://127.0.0.1:${appliance!.broker.tlsPort}`,
        {
          ...device.tls,
          clientId: device.id,
          protocolVersion: 4,
          reconnectPeriod: 0,
          connectTimeout: 5000,
          ...anyHostName,
        },
        false,
      ).then((client) => {
        closers.push(() => client.endAsync(true));
        return client;
      });

    async function telemetryReader() {
      const reader = await connectAsync(`mqtt://127.0.0.1:${appliance!.broker.tcpPort}`, {
        clientId: 'telemetry-reader',
        reconnectPeriod: 0,
      });
      closers.push(() => reader.endAsync(true));
      await reader.subscribeAsync(storeChannelFilter(location.id, 'telemetry'), { qos: 1 });
      const received: string[] = [];
      const waiting = new Map<string, () => void>();
      reader.on('message', (_topic, payload) => {
        received.push(payload.toString());
        waiting.get(payload.toString())?.();
      });
      return {
        received,
        /** Resolves when `payload` has arrived. */
        heard: (payload: string) =>
          new Promise<void>((resolve) => {
            if (received.includes(payload)) return resolve();
            waiting.set(payload, resolve);
          }),
      };
    }

    const publishTelemetry = (client: MqttClient, device: typeof stolen, payload: string) =>
      client.publishAsync(
        deviceTopic({
          deviceType: 'kds',
          locationId: location.id,
          deviceId: device.id,
          channel: 'telemetry',
        }),
        payload,
        { qos: 1 },
      );

    /** Revokes the certificate through the cloud's HTTP API, as an administrator does. */
    async function revokeOverHttp(serial: string) {
      const response = await fetch(`${cloudUrl}/v1/mdm/certificates/${serial}/revoke`, {
        method: 'POST',
        headers: { ...bearer(admin.token), 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'key_compromise' }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      return ((await response.json()) as { data: { revoked: boolean } }).data;
    }

    /** The revoked certificate is refused when it tries again: CONNACK 5, not authorized. */
    const refused = (device: typeof stolen) =>
      expect(connectScreen(device)).rejects.toMatchObject({ code: 5 });

    return {
      cloud,
      cloudUrl,
      cloudLog,
      applianceLog,
      uplink,
      stolen,
      fine,
      startStore,
      connectScreen,
      telemetryReader,
      publishTelemetry,
      revokeOverHttp,
      refused,
      /** Stops the cloud's fleet link and broker (what they held is lost) and starts them again on the same port. */
      async restartFleet() {
        await fleet.close();
        fleet = await startFleet({ ...fleetConfig, port: fleetPort }, fleetDeps);
      },
      async stopFleet() {
        await fleet.close();
      },
    };
  }

  it('cuts the revoked screen within seconds of the revocation, refuses it, and keeps the other', async () => {
    const rig = await setUp();
    const appliance = await rig.startStore();
    await within(appliance.fleetConnected!, 5000, 'the fleet link');
    const reader = await rig.telemetryReader();
    const stolen = await rig.connectScreen(rig.stolen);
    const fine = await rig.connectScreen(rig.fine);
    const stolenClosed = closeOf(stolen);
    let fineClosed = false;
    fine.on('close', () => {
      fineClosed = true;
    });
    await rig.publishTelemetry(fine, rig.fine, 'before');
    await within(reader.heard('before'), 5000, 'telemetry before the revocation');

    const revokedAt = performance.now();
    expect(await rig.revokeOverHttp(rig.stolen.serial)).toMatchObject({ revoked: true });
    const cutAt = await within(stolenClosed, REVOCATION_DEADLINE_MS, 'the revoked screen cut');
    await within(rig.refused(rig.stolen), REVOCATION_DEADLINE_MS, 'the revoked screen refused');
    const refusedAt = performance.now();
    const cutMs = Math.round(cutAt - revokedAt);
    const refusedMs = Math.round(refusedAt - revokedAt);
    console.info(
      `revocation reached the store: session cut ${cutMs} ms, reconnection refused ${refusedMs} ms after the API call`,
    );
    expect(refusedMs).toBeLessThan(REVOCATION_DEADLINE_MS);

    // The other screen never noticed: its session stayed, and its telemetry still reaches the reader.
    await rig.publishTelemetry(fine, rig.fine, 'after');
    await within(reader.heard('after'), 5000, 'telemetry after the cut');
    expect(fine.connected && !fineClosed).toBe(true);
    expect(rig.applianceLog.find('session closed: its certificate was revoked')).toEqual([
      expect.objectContaining({ clientId: rig.stolen.id, serial: rig.stolen.serial }),
    ]);
    // The appliance acknowledged the push, and the cloud heard it.
    await expect
      .poll(() => rig.cloudLog.find('revocation applied by the appliance'), { timeout: 5000 })
      .toEqual([expect.objectContaining({ serials: [rig.stolen.serial], result: { added: 1, known: 1 } })]);
  });

  it('brings a revocation made while the store was offline the moment its fleet link is back', async () => {
    const rig = await setUp();
    const appliance = await rig.startStore();
    await within(appliance.fleetConnected!, 5000, 'the fleet link');
    const stolen = await rig.connectScreen(rig.stolen);
    const fine = await rig.connectScreen(rig.fine);
    const stolenClosed = closeOf(stolen);

    rig.uplink.cut();
    await expect.poll(() => appliance.fleet!.link.connected(), { timeout: 5000 }).toBe(false);
    await rig.revokeOverHttp(rig.stolen.serial);
    await expect
      .poll(() => rig.cloudLog.find('revocation pushed over the fleet link'), { timeout: 5000 })
      .toHaveLength(1);
    // Offline, the store does not know yet: the screen keeps its session until the link is back.
    expect(stolen.connected).toBe(true);

    const backAt = performance.now();
    rig.uplink.restore();
    const cutAt = await within(
      stolenClosed,
      REVOCATION_DEADLINE_MS,
      'the revoked screen cut after the outage',
    );
    console.info(
      `revocation reached the store ${Math.round(cutAt - backAt)} ms after its fleet link came back`,
    );
    await rig.refused(rig.stolen);
    expect(fine.connected).toBe(true);
  });

  it('catches up from the revocation list when the fleet link comes back with nothing queued for it', async () => {
    const rig = await setUp();
    const appliance = await rig.startStore();
    await within(appliance.fleetConnected!, 5000, 'the fleet link');
    const stolen = await rig.connectScreen(rig.stolen);
    const fine = await rig.connectScreen(rig.fine);
    const stolenClosed = closeOf(stolen);

    // The cloud's fleet broker goes away, and with it anything it would have queued: no push at all.
    await rig.stopFleet();
    await expect.poll(() => appliance.fleet!.link.connected(), { timeout: 5000 }).toBe(false);
    await rig.revokeOverHttp(rig.stolen.serial);
    expect(stolen.connected).toBe(true);

    const backAt = performance.now();
    await rig.restartFleet();
    const cutAt = await within(stolenClosed, REVOCATION_DEADLINE_MS, 'the revoked screen cut on reconnect');
    console.info(
      `reconnect catch-up cut the revoked screen ${Math.round(cutAt - backAt)} ms after the fleet broker was back`,
    );
    expect(rig.cloudLog.find('revocation pushed over the fleet link')).toEqual([]);
    await rig.refused(rig.stolen);
    expect(fine.connected).toBe(true);
  });

  it('admits no device at start before it has asked the cloud what was revoked while it was stopped', async () => {
    const rig = await setUp();
    const first = await rig.startStore();
    await within(first.fleetConnected!, 5000, 'the fleet link');
    await first.stop();
    await rig.stopFleet();
    await rig.revokeOverHttp(rig.stolen.serial);

    // A slow cloud: its answers take a second and a half, longer than the appliance takes to start.
    const slowCloud = await startChaosProxy(rig.cloudUrl);
    closers.push(() => slowCloud.close());
    slowCloud.delays = [1500];
    await rig.startStore(slowCloud.url);
    await rig.refused(rig.stolen);
    const fine = await rig.connectScreen(rig.fine);
    expect(fine.connected).toBe(true);
    expect(rig.applianceLog.find('revocation list up to date before devices are admitted')).toHaveLength(2);
  });
});
