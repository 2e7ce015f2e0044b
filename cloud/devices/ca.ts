/**
 * The device certificate authority (ECDSA P-256). Its key and certificate are made on first use
 * and kept in the cloud store, so every gateway replica signs with the same CA. The private key is
 * stored as PKCS#8 PEM in the database: production would keep it in a KMS or HSM and sign there.
 * Devices send CSRs; the CA checks the request's signature, then certifies the identity the
 * registry gives (never the subject the device asked for).
 */
import { Buffer } from 'node:buffer';
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { type DeviceIdentity, deviceIdentityUri, tenantIdentityUri } from '../../shared/devices/identity.ts';
import { EC_P256, x509 } from '../../shared/devices/x509.ts';
import type { Db, Store } from '../db/index.ts';
import { csrSignatureInvalid, invalidCsr } from './errors.ts';
import { CA_ID, caRow, insertCa } from './store.ts';
import type { RevocationReason } from './tables.ts';

const DAY_MS = 86_400_000;
const CA_VALIDITY_DAYS = 3650;
// Certificates start a little in the past: a device whose clock lags must not find its new
// certificate "not yet valid".
const BACKDATE_MS = 5 * 60_000;
const CRL_VALIDITY_MS = DAY_MS;

const CRL_REASONS: Record<RevocationReason, x509.X509CrlReason> = {
  unspecified: x509.X509CrlReason.unspecified,
  key_compromise: x509.X509CrlReason.keyCompromise,
  superseded: x509.X509CrlReason.superseded,
  cessation_of_operation: x509.X509CrlReason.cessationOfOperation,
};

export interface CaDeps {
  db: Db;
  isUniqueViolation: Store['isUniqueViolation'];
  clock: Clock;
  certificateDays: number;
  random?: (size: number) => Buffer;
}

interface LoadedCa {
  certificate: x509.X509Certificate;
  pem: string;
  signingKey: webcrypto.CryptoKey;
}

export interface IssuedCertificate {
  serial: string;
  pem: string;
  notBefore: Date;
  notAfter: Date;
  publicKeySha256: string;
}

export interface CertificateRequest {
  publicKey: x509.PublicKey;
  /** The request's DER bytes: what a renewal signature covers. */
  der: Uint8Array;
  publicKeySha256: string;
}

export const keyFingerprint = (publicKey: x509.PublicKey) =>
  createHash('sha256').update(Buffer.from(publicKey.rawData)).digest('hex');

/** Parses a CSR and checks that it is signed by the P-256 key it carries (proof of possession). */
export async function readCertificateRequest(pem: string): Promise<CertificateRequest> {
  let request: x509.Pkcs10CertificateRequest;
  try {
    request = new x509.Pkcs10CertificateRequest(pem);
  } catch {
    throw invalidCsr('is not a PEM PKCS#10 certificate request');
  }
  const algorithm = request.publicKey.algorithm as { name?: string; namedCurve?: string };
  if (algorithm.name !== 'ECDSA' || algorithm.namedCurve !== 'P-256')
    throw invalidCsr('must carry an ECDSA P-256 public key');
  const verified = await request.verify().catch(() => false);
  if (!verified) throw csrSignatureInvalid();
  return {
    publicKey: request.publicKey,
    der: new Uint8Array(request.rawData),
    publicKeySha256: keyFingerprint(request.publicKey),
  };
}

// X.509 keeps whole seconds: the stored times must be the certificate's own.
const wholeSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000);

/** 16 random bytes, the first in 0x40-0x7f: positive and minimally encoded in DER, so the serial
 * reads back exactly as written. */
function newSerial(random: (size: number) => Buffer) {
  const bytes = random(16);
  bytes[0] = (bytes[0]! & 0x3f) | 0x40;
  return bytes.toString('hex');
}

async function createCa(now: Date) {
  const keys = (await webcrypto.subtle.generateKey(EC_P256, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: newSerial(randomBytes),
    name: 'CN=Edge device CA, O=Edge appliance cloud',
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + CA_VALIDITY_DAYS * DAY_MS),
    keys,
    signingAlgorithm: EC_P256,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    id: CA_ID,
    certificate_pem: certificate.toString('pem'),
    private_key_pem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
    created_at: now.toISOString(),
  };
}

/** The stored CA, made first by whichever replica gets there first; the others read it. */
async function loadOrCreate(deps: CaDeps): Promise<LoadedCa> {
  let row = await caRow(deps.db);
  if (!row) {
    const created = await createCa(deps.clock.now());
    try {
      await insertCa(deps.db, created);
      row = created;
    } catch (error) {
      if (!deps.isUniqueViolation(error)) throw error;
      row = await caRow(deps.db);
    }
  }
  if (!row) throw new Error('device CA row vanished after a concurrent insert');
  const der = x509.PemConverter.decodeFirst(row.private_key_pem);
  const signingKey = await webcrypto.subtle.importKey('pkcs8', der, EC_P256, false, ['sign']);
  return { certificate: new x509.X509Certificate(row.certificate_pem), pem: row.certificate_pem, signingKey };
}

export function createDeviceCa(deps: CaDeps) {
  const random = deps.random ?? randomBytes;
  let loading: Promise<LoadedCa> | undefined;
  const load = () => {
    loading ??= loadOrCreate(deps).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };

  return {
    certificatePem: async () => (await load()).pem,

    /**
     * A client certificate for `identity`'s device (for an appliance, a server certificate too),
     * certifying the key of a checked request.
     */
    async issue(request: CertificateRequest, identity: DeviceIdentity): Promise<IssuedCertificate> {
      const ca = await load();
      const now = deps.clock.now();
      const notBefore = wholeSeconds(now.getTime() - BACKDATE_MS);
      const notAfter = wholeSeconds(now.getTime() + deps.certificateDays * DAY_MS);
      const serial = newSerial(random);
      const certificate = await x509.X509CertificateGenerator.create({
        serialNumber: serial,
        subject: [{ CN: [identity.deviceId] }],
        issuer: ca.certificate.subjectName,
        notBefore,
        notAfter,
        publicKey: request.publicKey,
        signingKey: ca.signingKey,
        signingAlgorithm: EC_P256,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          // An appliance is also the server its store's devices connect to (the broker's TLS).
          new x509.ExtendedKeyUsageExtension(
            identity.deviceType === 'appliance'
              ? [x509.ExtendedKeyUsage.clientAuth, x509.ExtendedKeyUsage.serverAuth]
              : [x509.ExtendedKeyUsage.clientAuth],
          ),
          new x509.SubjectAlternativeNameExtension([
            { type: 'url', value: deviceIdentityUri(identity) },
            { type: 'url', value: tenantIdentityUri(identity.tenantId) },
          ]),
          await x509.AuthorityKeyIdentifierExtension.create(ca.certificate.publicKey),
          await x509.SubjectKeyIdentifierExtension.create(request.publicKey),
        ],
      });
      return {
        serial,
        pem: certificate.toString('pem'),
        notBefore,
        notAfter,
        publicKeySha256: request.publicKeySha256,
      };
    },

    /**
     * A TLS server certificate for one of the cloud's own endpoints (the fleet broker), for a key
     * made in that process: appliances check it against the CA their enrolment gave them, by the
     * host names and addresses it lists. Not a device's, so not in the registry.
     */
    async issueServer(publicKey: webcrypto.CryptoKey, names: { dns: string[]; ip: string[] }, days: number) {
      const ca = await load();
      const now = deps.clock.now();
      const certificate = await x509.X509CertificateGenerator.create({
        serialNumber: newSerial(random),
        subject: [{ CN: [names.dns[0] ?? names.ip[0] ?? 'fleet broker'] }],
        issuer: ca.certificate.subjectName,
        notBefore: wholeSeconds(now.getTime() - BACKDATE_MS),
        notAfter: wholeSeconds(now.getTime() + days * DAY_MS),
        publicKey,
        signingKey: ca.signingKey,
        signingAlgorithm: EC_P256,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension([
            ...names.dns.map((value) => ({ type: 'dns' as const, value })),
            ...names.ip.map((value) => ({ type: 'ip' as const, value })),
          ]),
          await x509.AuthorityKeyIdentifierExtension.create(ca.certificate.publicKey),
        ],
      });
      return { pem: certificate.toString('pem'), caPem: ca.pem };
    },

    /** An X.509 CRL (PEM, as Node's tls `crl` option and OpenSSL read it), valid for a day. */
    async crl(entries: Array<{ serial: string; revokedAt: string; reason: RevocationReason | null }>) {
      const ca = await load();
      const now = deps.clock.now();
      const crl = await x509.X509CrlGenerator.create({
        issuer: ca.certificate.subjectName,
        thisUpdate: now,
        nextUpdate: new Date(now.getTime() + CRL_VALIDITY_MS),
        signingKey: ca.signingKey,
        signingAlgorithm: EC_P256,
        entries: entries.map((entry) => ({
          serialNumber: entry.serial,
          revocationDate: new Date(entry.revokedAt),
          reason: CRL_REASONS[entry.reason ?? 'unspecified'],
        })),
      });
      // OpenSSL reads only the "X509 CRL" label; the library writes "CRL".
      return x509.PemConverter.encode(crl.rawData, 'X509 CRL');
    },
  };
}

export type DeviceCa = ReturnType<typeof createDeviceCa>;
