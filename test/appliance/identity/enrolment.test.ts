import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import pino from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadApplianceConfig, loadEnrolmentSettings } from '../../../appliance/config.ts';
import { enrolIfNeeded, identityDir, readIdentity } from '../../../appliance/identity/index.ts';
import { type RunningAppliance, startAppliance } from '../../../appliance/main.ts';
import { createTestCloud, seedTenant } from '../../support/cloud.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const LOCATION = '01900000-0000-7000-8000-0000000000c3';
const APPLIANCE = '01900000-0000-7000-8000-0000000000f1';
const CREDENTIAL = `sak_${APPLIANCE}.${'s'.repeat(24)}`;
const TOKEN = `det_${'t'.repeat(43)}`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function dataDir(enrolled: { credential?: string } | undefined) {
  const dir = mkdtempSync(join(tmpdir(), 'appliance-identity-config-'));
  dirs.push(dir);
  if (enrolled) {
    const identity = identityDir(dir);
    mkdirSync(identity, { recursive: true });
    for (const name of ['device.key', 'device.crt', 'ca.crt']) writeFileSync(join(identity, name), 'pem');
    writeFileSync(join(identity, 'device.id'), `${APPLIANCE}\n`);
    if (enrolled.credential !== undefined)
      writeFileSync(join(identity, 'sync.credential'), enrolled.credential);
  }
  return dir;
}
const load = (dir: string, env: Record<string, string> = {}) =>
  loadApplianceConfig({ TENANT_ID: TENANT, LOCATION_ID: LOCATION, APPLIANCE_DATA_DIR: dir, ...env });

describe('the enrolled appliance’s configuration', () => {
  it('syncs with the credential of its enrolment and serves the broker’s TLS with its certificate', () => {
    const dir = dataDir({ credential: CREDENTIAL });
    const config = load(dir, { APPLIANCE_FLEET_URL: 'mqtts://fleet.example:8883' });
    const identity = identityDir(dir);
    expect(config.identity).toMatchObject({ deviceId: APPLIANCE, syncCredential: CREDENTIAL });
    expect(config.sync.credential).toBe(CREDENTIAL);
    expect(config.mqtt.tls).toEqual({
      keyFile: join(identity, 'device.key'),
      certFile: join(identity, 'device.crt'),
      caFile: join(identity, 'ca.crt'),
      crlFile: undefined,
    });
    // Over mqtts the fleet link shows the same certificate; in the clear it signs in with the credential.
    expect(config.fleet).toMatchObject({ applianceId: APPLIANCE, credential: CREDENTIAL });
    expect(config.fleet!.tls).toEqual({
      keyFile: join(identity, 'device.key'),
      certFile: join(identity, 'device.crt'),
      caFile: join(identity, 'ca.crt'),
    });
    expect(load(dir, { APPLIANCE_FLEET_URL: 'mqtt://fleet.example:1883' }).fleet!.tls).toBeUndefined();
  });

  it('lets the environment name other material, and has none without an enrolment', () => {
    const dir = dataDir({ credential: CREDENTIAL });
    const other = `sak_${'01900000-0000-7000-8000-0000000000f2'}.${'o'.repeat(24)}`;
    expect(load(dir, { APPLIANCE_CLOUD_CREDENTIAL: other }).sync.credential).toBe(other);
    const bare = load(dataDir(undefined));
    expect(bare).toMatchObject({ identity: undefined, sync: { credential: undefined } });
    expect(bare.mqtt.tls).toBeUndefined();
    expect(() => load(dataDir(undefined), { APPLIANCE_FLEET_URL: 'mqtt://fleet:1883' })).toThrow(
      /APPLIANCE_ENROLLMENT_TOKEN/,
    );
  });

  it('refuses a credential file that is not one, naming the file', () => {
    const dir = dataDir({ credential: 'not a credential' });
    expect(() => load(dir)).toThrow(/sync\.credential is not a sak_… credential/);
  });

  it('checks the enrolment token and that there is a cloud to trade it with', () => {
    expect(
      loadEnrolmentSettings({ CLOUD_URL: 'http://cloud', APPLIANCE_ENROLLMENT_TOKEN: TOKEN }),
    ).toMatchObject({ cloudUrl: 'http://cloud', enrollmentToken: TOKEN, dataDir: './data/appliance' });
    expect(() =>
      loadEnrolmentSettings({ CLOUD_URL: 'http://cloud', APPLIANCE_ENROLLMENT_TOKEN: 'abc' }),
    ).toThrow(/APPLIANCE_ENROLLMENT_TOKEN must be the det_… token/);
    expect(() => loadEnrolmentSettings({ APPLIANCE_ENROLLMENT_TOKEN: TOKEN })).toThrow(/needs CLOUD_URL/);
    expect(() => loadEnrolmentSettings({ CLOUD_URL: 'ftp://cloud' })).toThrow(/CLOUD_URL must be/);
  });
});

describe('enrolment at start', () => {
  it('enrols once with a good token, keeps what it got, and survives a refusal without files', async () => {
    const cloud = await createTestCloud('sqlite');
    try {
      await cloud.app.listen({ port: 0, host: '127.0.0.1' });
      const cloudUrl = `http://127.0.0.1:${(cloud.app.server.address() as { port: number }).port}`;
      const { tenant, location } = await seedTenant(cloud.services, 'acme');
      const registered = await cloud.services.devices.register(tenant.id, {
        location_id: location.id,
        device_type: 'appliance',
        name: 'Store 1 appliance',
        serial_number: 'APL-1',
      });
      const log = pino({ level: 'silent' });

      const refused = dataDir(undefined);
      expect(await enrolIfNeeded({ dataDir: refused, cloudUrl, enrollmentToken: TOKEN, log })).toBe('none');
      expect(existsSync(identityDir(refused))).toBe(false);
      expect(await enrolIfNeeded({ dataDir: refused, cloudUrl, enrollmentToken: undefined, log })).toBe(
        'none',
      );

      const dir = dataDir(undefined);
      const request = { dataDir: dir, cloudUrl, enrollmentToken: registered.enrollment_token, log };
      expect(await enrolIfNeeded(request)).toBe('enrolled');
      const identity = readIdentity(dir)!;
      expect(identity.deviceId).toBe(registered.id);
      expect(await cloud.services.sync.authenticate(identity.syncCredential!)).toMatchObject({
        applianceId: registered.id,
        locationId: location.id,
      });
      // A restart with the (now spent) token in its environment keeps the identity it has.
      expect(await enrolIfNeeded(request)).toBe('present');
      expect((await cloud.services.devices.getDevice(tenant.id, registered.id)).state).toBe('active');
    } finally {
      await cloud.close();
    }
  });
});

describe('renewal while the appliance runs', () => {
  it('renews a certificate near its end at start, and the store broker serves the new one at once', async () => {
    // Ten-day certificates: within the 30 days before expiry from the moment they are issued.
    const cloud = await createTestCloud('sqlite', {
      config: { devices: { certificateDays: 10 } },
    });
    let appliance: RunningAppliance | undefined;
    try {
      const cloudUrl = await cloud.app.listen({ port: 0, host: '127.0.0.1' });
      const { tenant, location } = await seedTenant(cloud.services, 'acme');
      const registered = await cloud.services.devices.register(tenant.id, {
        location_id: location.id,
        device_type: 'appliance',
        name: 'Store 1 appliance',
        serial_number: 'APL-1',
      });
      const dir = dataDir(undefined);
      const log = pino({ level: 'silent' });
      await enrolIfNeeded({ dataDir: dir, cloudUrl, enrollmentToken: registered.enrollment_token, log });
      const certFile = join(identityDir(dir), 'device.crt');
      const serialOf = (pem: string | Buffer) => new X509Certificate(pem).serialNumber.toLowerCase();
      const enrolled = serialOf(readFileSync(certFile));

      const config = loadApplianceConfig({
        TENANT_ID: tenant.id,
        LOCATION_ID: location.id,
        APPLIANCE_DATA_DIR: dir,
        APPLIANCE_PORT: '0',
        APPLIANCE_HOST: '127.0.0.1',
        APPLIANCE_MQTT_TLS_PORT: '0',
        CLOUD_URL: cloudUrl,
        LOG_LEVEL: 'silent',
      });
      appliance = await startAppliance(config, log);
      const served = () =>
        new Promise<string>((resolve, reject) => {
          const socket = tlsConnect(
            { port: appliance!.broker.tlsPort!, host: '127.0.0.1', rejectUnauthorized: false },
            () => {
              resolve(socket.getPeerCertificate().serialNumber.toLowerCase());
              socket.destroy();
            },
          );
          socket.on('error', reject);
        });
      // The renewal replaced the files, and the listener shows the new certificate to new connections.
      await vi.waitFor(
        async () => {
          const onDisk = serialOf(readFileSync(certFile));
          expect(onDisk).not.toBe(enrolled);
          expect(await served()).toBe(onDisk);
        },
        { timeout: 10_000, interval: 100 },
      );
      const certificates = await cloud.services.devices.expiringCertificates(tenant.id, {
        withinMs: 30 * 86_400_000,
        includeRevoked: true,
        limit: 10,
      });
      expect(certificates.items.find((c) => c.serial === enrolled)).toMatchObject({ revoked: true });
    } finally {
      await appliance?.stop();
      await cloud.close();
    }
  });
});
