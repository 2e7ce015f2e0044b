import { randomBytes, webcrypto } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonGeneralName } from '@peculiar/x509';
import { staffUrn } from '../../appliance/devices/broker/identity.ts';
import { deviceIdentityUri, tenantIdentityUri } from '../../shared/devices/identity.ts';
import { EC_P256, x509 } from '../../shared/devices/x509.ts';
import type { DeviceType } from '../../shared/mqtt/topics.ts';

const ALGORITHM = EC_P256;
const TENANT = '01900000-0000-7000-8000-0000000000a1';
const DAY = 24 * 60 * 60 * 1000;

/** A certificate and its key, PEM; `serial` in the broker's form (lower-case hex, no leading zeros). */
export interface IssuedCert {
  cert: string;
  key: string;
  serial: string;
}

export interface Validity {
  notBefore?: Date;
  notAfter?: Date;
}

// Positive and without a leading zero, so every tool prints it the same way.
const newSerial = () => `4${randomBytes(8).toString('hex').slice(1)}`;

type KeyPair = webcrypto.CryptoKeyPair;
const keys = () => webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']) as Promise<KeyPair>;

async function pemKey(key: webcrypto.CryptoKey) {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');
}

/**
 * A test device CA in the layout appliance/devices/broker/identity.ts reads: device certificates
 * as the cloud's CA writes them (shared/devices/identity.ts: CN=<device_id>, SAN URIs
 * urn:edge:device:<type>:<location>:<id> and urn:edge:tenant:<tenant>); staff
 * certificates with CN=<user_id>, one OU per role and urn:edge:staff:<location>:<user_id>; and a
 * server certificate for localhost / 127.0.0.1.
 */
export async function createDeviceCa(name = 'Edge Test Device CA') {
  const caKeys = await keys();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: newSerial(),
    name: `CN=${name}`,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  async function issue(
    subject: string,
    names: JsonGeneralName[],
    usage: x509.ExtendedKeyUsage,
    validity: Validity = {},
  ): Promise<IssuedCert> {
    const leafKeys = await keys();
    const serial = newSerial();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial,
      subject,
      issuer: caCert.subject,
      notBefore: validity.notBefore ?? new Date(Date.now() - DAY),
      notAfter: validity.notAfter ?? new Date(Date.now() + 30 * DAY),
      publicKey: leafKeys.publicKey,
      signingKey: caKeys.privateKey,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([usage]),
        ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
        await x509.AuthorityKeyIdentifierExtension.create(caCert),
      ],
    });
    return { cert: cert.toString('pem'), key: await pemKey(leafKeys.privateKey), serial };
  }

  return {
    cert: caCert.toString('pem'),
    server: () =>
      issue(
        'CN=localhost',
        [
          { type: 'dns', value: 'localhost' },
          { type: 'ip', value: '127.0.0.1' },
        ],
        x509.ExtendedKeyUsage.serverAuth,
      ),
    device: (type: DeviceType, locationId: string, deviceId: string, validity?: Validity) =>
      issue(
        `CN=${deviceId}`,
        [
          { type: 'url', value: deviceIdentityUri({ deviceType: type, locationId, deviceId }) },
          { type: 'url', value: tenantIdentityUri(TENANT) },
        ],
        x509.ExtendedKeyUsage.clientAuth,
        validity,
      ),
    staff: (userId: string, roles: string[], locationId: string) =>
      issue(
        [`CN=${userId}`, ...roles.map((role) => `OU=${role}`)].join(', '),
        [{ type: 'url', value: staffUrn(locationId, userId) }],
        x509.ExtendedKeyUsage.clientAuth,
      ),
    /** Any certificate the broker must read as nobody: a plain CN, no SAN URI. */
    anonymous: (commonName: string) => issue(`CN=${commonName}`, [], x509.ExtendedKeyUsage.clientAuth),
  };
}

export type DeviceCa = Awaited<ReturnType<typeof createDeviceCa>>;

/** A certificate valid last month only. */
export const expired = (): Validity => ({
  notBefore: new Date(Date.now() - 60 * DAY),
  notAfter: new Date(Date.now() - 30 * DAY),
});

/** Writes `<name>.crt` and `<name>.key` for command-line clients; answers their paths. */
export function writeCertFiles(dir: string, name: string, issued: Pick<IssuedCert, 'cert' | 'key'>) {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  writeFileSync(cert, issued.cert);
  writeFileSync(key, issued.key, { mode: 0o600 });
  return { cert, key };
}
