import { sign, webcrypto } from 'node:crypto';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EC_P256, x509 } from '../../../shared/devices/x509.ts';
import { backends } from '../../support/stores.ts';
import {
  type DeviceCloud,
  deviceCloud,
  deviceKey,
  type Enrolled,
  enrolledDevice,
  expectError,
  expectOk,
  renewalOf,
} from './device-client.ts';

const serialsOf = (list: { revoked: Array<{ serial: string }> }) => list.revoked.map((entry) => entry.serial);

async function serverIdentity() {
  const keys = (await webcrypto.subtle.generateKey(EC_P256, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=localhost',
    keys,
    signingAlgorithm: EC_P256,
    notBefore: new Date(Date.now() - 60_000),
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/**
 * Whether a TLS server that trusts the device CA and loads the CRL accepts `device`'s certificate.
 * TLS checks validity against the real clock: use it before the test clock has moved.
 */
async function acceptedByTls(device: Enrolled, crl: string) {
  const identity = await serverIdentity();
  const accepted: boolean[] = [];
  const server = createServer(
    { ...identity, ca: device.ca_certificate, crl, requestCert: true, rejectUnauthorized: true },
    (socket) => {
      accepted.push(socket.authorized);
      socket.end('hello');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const key = device.key.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const answer = await new Promise<string>((resolve) => {
    const socket: TLSSocket = connect({
      port,
      host: '127.0.0.1',
      key,
      cert: device.certificate,
      rejectUnauthorized: false,
    });
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('close', () => resolve(data));
    socket.on('error', () => resolve(data));
  });
  await new Promise((resolve) => server.close(resolve));
  return answer === 'hello' && accepted.every(Boolean) && accepted.length === 1;
}

const renew = (context: DeviceCloud, deviceId: string, body: unknown) =>
  context.anonymous('POST', `/v1/mdm/devices/${deviceId}/renew`, body);
const revokedList = async (context: DeviceCloud, query = '') =>
  expectOk(await context.anonymous('GET', `/v1/mdm/certificates/revoked${query}`));
/** The CA's CRL, as a TLS server loads it. */
async function crl(context: DeviceCloud) {
  const response = await context.anonymous('GET', '/v1/mdm/ca/crl');
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toContain('application/x-pem-file');
  return response.body;
}

describe.each(backends)('device certificates on %s', (backend) => {
  let context: DeviceCloud;
  /**
   * The revocation test's cloud: a TLS server checks certificates and the CRL against the real
   * clock, which the renewal and expiry tests move `context`'s months ahead, and `since` must list
   * that test's revocation alone, where the other tests revoke at the same instant.
   */
  let realTime: DeviceCloud;
  beforeAll(async () => {
    // Side by side: each spends much of its start waiting on its store.
    [context, realTime] = await Promise.all([deviceCloud(backend), deviceCloud(backend)]);
  });
  afterAll(async () => {
    await Promise.all([context.cloud.close(), realTime.cloud.close()]);
  });

  it('revokes a certificate: it is listed, in the signed CRL, and a TLS server with the CRL refuses it', async () => {
    // A cloud no other test moves the clock of or revokes in.
    const context = realTime;
    const device = await enrolledDevice(context);
    const other = await enrolledDevice(context);
    expect(await acceptedByTls(device, await crl(context))).toBe(true);
    const before = context.cloud.clock.now().toISOString();

    const revoked = expectOk(
      await context.adminA.call('POST', `/v1/mdm/certificates/${device.serial.toUpperCase()}/revoke`, {
        reason: 'key_compromise',
      }),
    );
    expect(revoked).toMatchObject({
      serial: device.serial,
      revoked: true,
      revocation_reason: 'key_compromise',
    });
    // Idempotent.
    expectOk(await context.adminA.call('POST', `/v1/mdm/certificates/${device.serial}/revoke`, {}));

    expect(serialsOf(await revokedList(context))).toContain(device.serial);
    expect(serialsOf(await revokedList(context, `?since=${encodeURIComponent(before)}`))).toEqual([
      device.serial,
    ]);
    const pem = await crl(context);
    const parsed = new x509.X509Crl(pem);
    const ca = new x509.X509Certificate(device.ca_certificate);
    expect(await parsed.verify({ publicKey: ca })).toBe(true);
    expect(parsed.findRevoked(device.serial)?.reason).toBe(x509.X509CrlReason.keyCompromise);
    expect(parsed.findRevoked(other.serial)).toBeNull();

    expect(await acceptedByTls(device, pem)).toBe(false);
    expect(await acceptedByTls(other, pem)).toBe(true);
    // Revoking a certificate leaves the device as it was: it may enrol again.
    expect(expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${device.device_id}`)).state).toBe(
      'active',
    );
  });

  it('revokes a device and every certificate it holds, for good', async () => {
    const device = await enrolledDevice(context);
    const record = expectOk(
      await context.adminA.call('POST', `/v1/mdm/devices/${device.device_id}/revoke`, {}),
    );
    expect(record).toMatchObject({
      state: 'revoked',
      certificate_expires_at: null,
      revoked_at: expect.any(String),
    });
    expect(new x509.X509Crl(await crl(context)).findRevoked(device.serial)?.reason).toBe(
      x509.X509CrlReason.cessationOfOperation,
    );
    expectError(
      await context.adminA.call('POST', `/v1/mdm/devices/${device.device_id}/regenerate-token`),
      409,
      'DEVICE_REVOKED',
    );
    const { body } = await renewalOf(device);
    expectError(await renew(context, device.device_id, body), 401, 'CERTIFICATE_REVOKED');
    expect(
      expectOk(await context.adminA.call('POST', `/v1/mdm/devices/${device.device_id}/revoke`, {})).state,
    ).toBe('revoked');
  });

  it('renews for a new key signed by the current one, superseding the old certificate', async () => {
    const device = await enrolledDevice(context);
    await context.advanceDays(60);
    const { key, body } = await renewalOf(device);
    const renewed = expectOk(await renew(context, device.device_id, body));
    expect(renewed.serial).not.toBe(device.serial);
    expect(renewed.device_id).toBe(device.device_id);
    const certificate = new x509.X509Certificate(renewed.certificate);
    const ca = new x509.X509Certificate(renewed.ca_certificate);
    expect(await certificate.verify({ publicKey: ca, date: context.cloud.clock.now() })).toBe(true);
    expect(certificate.subject).toBe(`CN=${device.device_id}`);
    expect(Buffer.from(certificate.publicKey.rawData)).toEqual(
      Buffer.from(new x509.Pkcs10CertificateRequest(key.csr).publicKey.rawData),
    );
    const record = expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${device.device_id}`));
    expect(record.certificate_expires_at).toBe(renewed.expires_at);
    expect(await revokedList(context)).toMatchObject({
      revoked: expect.arrayContaining([
        expect.objectContaining({ serial: device.serial, reason: 'superseded' }),
      ]),
    });

    // The answer was lost: the same request again returns the same certificate, no third one.
    expect(expectOk(await renew(context, device.device_id, body)).serial).toBe(renewed.serial);
    // The superseded certificate cannot renew for another key.
    expectError(
      await renew(context, device.device_id, (await renewalOf(device)).body),
      401,
      'CERTIFICATE_REVOKED',
    );
    // The new one can, with a raw (WebCrypto) signature too.
    const next = await deviceKey();
    const raw = sign('sha256', Buffer.from(new x509.Pkcs10CertificateRequest(next.csr).rawData), {
      key: key.privateKey,
      dsaEncoding: 'ieee-p1363',
    }).toString('base64');
    expectOk(
      await renew(context, device.device_id, {
        csr: next.csr,
        certificate: renewed.certificate,
        signature: raw,
      }),
    );
  });

  it('refuses forged renewals', async () => {
    const device = await enrolledDevice(context);
    const victim = await enrolledDevice(context);
    const attacker = await deviceKey();
    const forged = await renewalOf({ certificate: device.certificate, key: attacker });
    expectError(await renew(context, device.device_id, forged.body), 401, 'RENEWAL_UNAUTHORIZED');

    // A real certificate and signature, but for another device's path.
    const elsewhere = await renewalOf(device);
    expectError(await renew(context, victim.device_id, elsewhere.body), 401, 'RENEWAL_UNAUTHORIZED');

    // A look-alike certificate with our serial, self-signed by the attacker.
    const keys = (await webcrypto.subtle.generateKey(EC_P256, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const fake = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: device.serial,
      name: `CN=${device.device_id}`,
      keys,
      signingAlgorithm: EC_P256,
    });
    const fakeKey = await deviceKey();
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
    const { createPrivateKey } = await import('node:crypto');
    const lookAlike = await renewalOf(
      {
        certificate: fake.toString('pem'),
        key: { ...fakeKey, privateKey: createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }) },
      },
      fakeKey,
    );
    expectError(await renew(context, device.device_id, lookAlike.body), 401, 'RENEWAL_UNAUTHORIZED');

    expectError(
      await renew(context, device.device_id, { ...elsewhere.body, certificate: 'nope' }),
      400,
      'INVALID_CERTIFICATE',
    );
    // The same key again is no renewal.
    const sameKey = await renewalOf(device, { ...device.key, csr: (await reissueCsr(device)).csr });
    expectError(await renew(context, device.device_id, sameKey.body), 400, 'KEY_REUSED');
    // Nothing was issued by any of these.
    expect(
      expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${device.device_id}`))
        .certificate_expires_at,
    ).toBe(device.expires_at);
  });

  it('refuses to renew an expired certificate: the device enrols again', async () => {
    const device = await enrolledDevice(context);
    await context.advanceDays(91);
    expectError(
      await renew(context, device.device_id, (await renewalOf(device)).body),
      401,
      'CERTIFICATE_EXPIRED',
    );
    // An expired certificate no longer needs listing as revoked.
    expect(serialsOf(await revokedList(context))).not.toContain(device.serial);
  });
});

/** A fresh CSR for the device's existing key. */
async function reissueCsr(device: Enrolled) {
  const pkcs8 = device.key.pkcs8;
  const privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, EC_P256, true, ['sign']);
  const jwk = await webcrypto.subtle.exportKey('jwk', privateKey);
  const publicKey = await webcrypto.subtle.importKey(
    'jwk',
    { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y! },
    EC_P256,
    true,
    ['verify'],
  );
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: 'CN=again',
    keys: { privateKey, publicKey },
    signingAlgorithm: EC_P256,
  });
  return { csr: csr.toString('pem') };
}
