import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeviceService } from '../../../cloud/devices/index.ts';
import { parseDeviceIdentityUri, parseTenantIdentityUri } from '../../../shared/devices/identity.ts';
import { x509 } from '../../../shared/devices/x509.ts';
import { backends } from '../../support/stores.ts';
import {
  type DeviceCloud,
  deviceCloud,
  deviceKey,
  enrolledDevice,
  expectError,
  expectOk,
  registerDevice,
} from './device-client.ts';

const DAY_MS = 86_400_000;

describe.each(backends)('device enrolment on %s', (backend) => {
  let context: DeviceCloud;
  beforeAll(async () => {
    context = await deviceCloud(backend);
  });
  afterAll(() => context.cloud.close());

  const enrol = (enrollment_token: string, csr: string) =>
    context.anonymous('POST', '/v1/mdm/enroll', { enrollment_token, csr });

  it('trades token and CSR for a certificate whose identity comes from the registry', async () => {
    const device = await registerDevice(context.adminA, context.a.location.id, { device_type: 'printer' });
    expect(device).toMatchObject({ state: 'pending_activation', certificate_expires_at: null });
    expect(device.enrollment_token).toMatch(/^det_[A-Za-z0-9_-]{43}$/);
    const key = await deviceKey('CN=someone-else, O=Evil');

    const issued = expectOk(await enrol(device.enrollment_token, key.csr));
    expect(issued).toMatchObject({
      device_id: device.id,
      tenant_id: context.a.tenant.id,
      location_id: context.a.location.id,
      device_type: 'printer',
      serial: expect.stringMatching(/^[4-7][0-9a-f]{31}$/),
    });

    const certificate = new x509.X509Certificate(issued.certificate);
    const ca = new x509.X509Certificate(issued.ca_certificate);
    expect(await certificate.verify({ publicKey: ca, date: context.cloud.clock.now() })).toBe(true);
    expect(certificate.subject).toBe(`CN=${device.id}`);
    expect(certificate.issuer).toBe(ca.subject);
    expect(certificate.serialNumber).toBe(issued.serial);
    const lifetime = certificate.notAfter.getTime() - context.cloud.clock.now().getTime();
    expect(Math.round(lifetime / DAY_MS)).toBe(90);
    expect(new Date(issued.expires_at).getTime()).toBe(certificate.notAfter.getTime());

    const uris = certificate
      .getExtension(x509.SubjectAlternativeNameExtension)!
      .names.items.map((name) => name.value);
    expect(uris.map(parseDeviceIdentityUri).filter(Boolean)).toEqual([
      { deviceType: 'printer', locationId: context.a.location.id, deviceId: device.id },
    ]);
    expect(uris).toContain(`urn:edge:device:printer:${context.a.location.id}:${device.id}`);
    expect(uris.map(parseTenantIdentityUri).filter(Boolean)).toEqual([context.a.tenant.id]);
    expect(certificate.getExtension(x509.ExtendedKeyUsageExtension)!.usages).toEqual([
      x509.ExtendedKeyUsage.clientAuth,
    ]);
    expect(certificate.getExtension(x509.BasicConstraintsExtension)!.ca).toBe(false);

    const record = expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${device.id}`));
    expect(record).toMatchObject({
      state: 'active',
      enrolled_at: context.cloud.clock.now().toISOString(),
      certificate_expires_at: issued.expires_at,
      enrollment_token_expires_at: null,
    });
    // The public CA endpoint serves the same CA.
    const published = expectOk(await context.anonymous('GET', '/v1/mdm/ca'));
    expect(published.certificate).toBe(issued.ca_certificate);
    expect(published.fingerprint_sha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });

  it('never sees the device’s private key: it is in no table, no answer and no audit line', async () => {
    const device = await registerDevice(context.adminA, context.a.location.id);
    const key = await deviceKey();
    const answer = await enrol(device.enrollment_token, key.csr);
    expect(answer.statusCode).toBe(200);
    const db = context.cloud.store.db;
    const stored = JSON.stringify([
      await db.selectFrom('devices').selectAll().execute(),
      await db.selectFrom('device_certificates').selectAll().execute(),
      await db.selectFrom('device_ca').selectAll().execute(),
      await db.selectFrom('audit_events').selectAll().execute(),
    ]);
    for (const secret of [
      key.pkcs8.toString('base64'),
      key.scalar,
      Buffer.from(key.scalar, 'base64url').toString('hex'),
    ]) {
      expect(stored).not.toContain(secret);
      expect(answer.body).not.toContain(secret);
    }
    // Nor the enrolment token: only its digest is kept.
    expect(stored).not.toContain(device.enrollment_token);
  });

  it('refuses a used, an unknown and an expired token alike, with 401 INVALID_ENROLLMENT_TOKEN', async () => {
    const used = await registerDevice(context.adminA, context.a.location.id);
    expectOk(await enrol(used.enrollment_token, (await deviceKey()).csr));
    expectError(await enrol(used.enrollment_token, (await deviceKey()).csr), 401, 'INVALID_ENROLLMENT_TOKEN');
    expectError(
      await enrol('det_nothing-like-this', (await deviceKey()).csr),
      401,
      'INVALID_ENROLLMENT_TOKEN',
    );

    const late = await registerDevice(context.adminA, context.a.location.id);
    await context.advanceDays(7);
    expectError(await enrol(late.enrollment_token, (await deviceKey()).csr), 401, 'INVALID_ENROLLMENT_TOKEN');
    const record = expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${late.id}`));
    expect(record.state).toBe('pending_activation');
  });

  it('gives one certificate to two devices racing with one token', async () => {
    const device = await registerDevice(context.adminA, context.a.location.id);
    const [first, second] = await Promise.all([
      enrol(device.enrollment_token, (await deviceKey()).csr),
      enrol(device.enrollment_token, (await deviceKey()).csr),
    ]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([200, 401]);
    const certificates = await context.cloud.store.db
      .selectFrom('device_certificates')
      .select('serial')
      .where('device_id', '=', device.id)
      .execute();
    expect(certificates).toHaveLength(1);
  });

  it('regenerates a token: the old one stops working, the device stays pending until it enrols', async () => {
    const device = await registerDevice(context.adminA, context.a.location.id);
    const fresh = expectOk(
      await context.adminA.call('POST', `/v1/mdm/devices/${device.id}/regenerate-token`),
    );
    expect(fresh).toMatchObject({ device_id: device.id, state: 'pending_activation' });
    expect(fresh.enrollment_token).not.toBe(device.enrollment_token);
    expectError(
      await enrol(device.enrollment_token, (await deviceKey()).csr),
      401,
      'INVALID_ENROLLMENT_TOKEN',
    );
    expectOk(await enrol(fresh.enrollment_token, (await deviceKey()).csr));
  });

  it('re-enrols an enrolled device with a regenerated token, superseding its old certificate', async () => {
    const first = await enrolledDevice(context);
    const fresh = expectOk(
      await context.adminA.call('POST', `/v1/mdm/devices/${first.device_id}/regenerate-token`),
    );
    expect(fresh.state).toBe('active');
    const second = expectOk(await enrol(fresh.enrollment_token, (await deviceKey()).csr));
    const revoked = expectOk(await context.anonymous('GET', '/v1/mdm/certificates/revoked'));
    expect(revoked.revoked).toContainEqual(
      expect.objectContaining({ serial: first.serial, reason: 'superseded' }),
    );
    expect(revoked.revoked.map((entry: { serial: string }) => entry.serial)).not.toContain(second.serial);
  });

  it('answers 400 to a CSR that is not one or whose signature does not verify, without using the token', async () => {
    const device = await registerDevice(context.adminA, context.a.location.id);
    const garbage = expectError(await enrol(device.enrollment_token, 'not a csr'), 400, 'INVALID_CSR');
    expect(garbage.details).toEqual([{ field: 'body.csr', message: expect.any(String) }]);

    // Flip a bit of the signature (the last bytes of the DER).
    const key = await deviceKey();
    const der = Buffer.from(new x509.Pkcs10CertificateRequest(key.csr).rawData);
    der[der.length - 2] = der[der.length - 2]! ^ 0x01;
    const forged = x509.PemConverter.encode(der, 'CERTIFICATE REQUEST');
    const refused = expectError(await enrol(device.enrollment_token, forged), 400, 'CSR_SIGNATURE_INVALID');
    expect(refused.details).toEqual([{ field: 'body.csr', message: expect.any(String) }]);

    expectOk(await enrol(device.enrollment_token, key.csr));
  });

  it('validates the request body', async () => {
    const missing = expectError(
      await context.anonymous('POST', '/v1/mdm/enroll', { csr: 'x' }),
      400,
      'INVALID_REQUEST',
    );
    expect(missing.details).toContainEqual({ field: 'body.enrollment_token', message: 'is required' });
    const extra = expectError(
      await context.anonymous('POST', '/v1/mdm/enroll', {
        enrollment_token: 'det_x',
        csr: 'x',
        subject: 'CN=me',
      }),
      400,
      'INVALID_REQUEST',
    );
    expect(extra.details).toContainEqual({ field: 'body.subject', message: 'is not an accepted field' });
  });

  it('makes the CA once: replicas starting together on one store sign with the same CA', async () => {
    const replicas = [1, 2, 3].map(() =>
      createDeviceService({
        store: context.cloud.store,
        clock: context.cloud.clock,
        newId: () => crypto.randomUUID(),
        log: context.cloud.app.log as never,
        options: { certificateDays: 90 },
        locationExists: async () => true,
      }),
    );
    const answers = await Promise.all(replicas.map((replica) => replica.caCertificate()));
    const published = expectOk(await context.anonymous('GET', '/v1/mdm/ca'));
    expect(new Set([...answers.map((answer) => answer.certificate), published.certificate]).size).toBe(1);
  });
});
