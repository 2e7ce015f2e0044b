import { createPrivateKey, webcrypto } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import cron from 'node-cron';
import type { Logger } from 'pino';
import { request } from 'undici';
import type { Clock } from '../../shared/clock.ts';
import { renewalSignature } from '../../shared/devices/enrolment.ts';
import { EC_P256, x509 } from '../../shared/devices/x509.ts';

/**
 * This appliance's certificate from the cloud's device CA: enrolled once with a one-time token,
 * then renewed before it expires, each time for a key made here (the key never leaves this
 * machine; the cloud sees a CSR, and a signature by the current key proving it is us). Files are
 * replaced atomically, so a crash mid-renewal leaves the old pair in place.
 */
export interface CertificateFiles {
  dir: string;
  cloudUrl: string;
  clock: Clock;
  log: Logger;
  /** Renew when fewer days than this remain. */
  renewWithinDays: number;
}

interface Issued {
  device_id: string;
  certificate: string;
  ca_certificate: string;
  expires_at: string;
  /** At an appliance's enrolment: the credential it syncs and joins the fleet link with. */
  sync_credential?: string;
}

export const identityFiles = (dir: string) => ({
  key: join(dir, 'device.key'),
  cert: join(dir, 'device.crt'),
  ca: join(dir, 'ca.crt'),
  id: join(dir, 'device.id'),
  syncCredential: join(dir, 'sync.credential'),
});

async function newKeyAndCsr() {
  const keys = (await webcrypto.subtle.generateKey(EC_P256, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: 'CN=appliance',
    keys,
    signingAlgorithm: EC_P256,
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const body = pkcs8
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n');
  return {
    csr: csr.toString('pem'),
    keyPem: `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`,
  };
}

async function writeAtomically(file: string, content: string, mode = 0o600) {
  await writeFile(`${file}.tmp`, content, { mode });
  await rename(`${file}.tmp`, file);
}

async function post(url: string, body: unknown): Promise<Issued> {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.body.json()) as { data?: Issued; error?: { code: string; message: string } };
  if (response.statusCode !== 200 && response.statusCode !== 201)
    throw new Error(
      `the cloud refused: ${json.error?.code ?? response.statusCode} ${json.error?.message ?? ''}`,
    );
  return json.data!;
}

export function createCertificateKeeper(options: CertificateFiles) {
  const files = identityFiles(options.dir);

  async function save(issued: Issued, keyPem: string) {
    await mkdir(options.dir, { recursive: true });
    // The key first: a certificate without its key would be useless, the reverse only unused.
    await writeAtomically(files.key, keyPem);
    await writeAtomically(files.cert, issued.certificate, 0o644);
    await writeAtomically(files.ca, issued.ca_certificate, 0o644);
    await writeAtomically(files.id, issued.device_id, 0o644);
    if (issued.sync_credential) await writeAtomically(files.syncCredential, issued.sync_credential);
    options.log.info(
      { deviceId: issued.device_id, expiresAt: issued.expires_at },
      'device certificate saved',
    );
  }

  async function current() {
    const [cert, key, id] = await Promise.all([
      readFile(files.cert, 'utf8').catch(() => undefined),
      readFile(files.key, 'utf8').catch(() => undefined),
      readFile(files.id, 'utf8').catch(() => undefined),
    ]);
    if (!cert || !key || !id) return undefined;
    return { cert, key, deviceId: id.trim(), notAfter: new x509.X509Certificate(cert).notAfter };
  }

  return {
    files,
    current,

    /** First contact: the one-time token from registration buys the first certificate. */
    async enrol(enrollmentToken: string) {
      const { csr, keyPem } = await newKeyAndCsr();
      const issued = await post(`${options.cloudUrl}/v1/mdm/enroll`, {
        enrollment_token: enrollmentToken,
        csr,
      });
      await save(issued, keyPem);
      return issued;
    },

    /** Renews when the certificate is within `renewWithinDays` of expiry; answers whether it did. */
    async renewIfDue(): Promise<boolean> {
      const held = await current();
      if (!held) return false;
      const left = held.notAfter.getTime() - options.clock.now().getTime();
      if (left > options.renewWithinDays * 86_400_000) return false;
      const { csr, keyPem } = await newKeyAndCsr();
      const signature = renewalSignature(csr, createPrivateKey(held.key));
      const issued = await post(`${options.cloudUrl}/v1/mdm/devices/${held.deviceId}/renew`, {
        csr,
        certificate: held.cert,
        signature,
      });
      await save(issued, keyPem);
      return true;
    },
  };
}

export type CertificateKeeper = ReturnType<typeof createCertificateKeeper>;

/** Checks every day (by default at 03:17, away from the hour's crowd) and renews when due. */
export function scheduleRenewal(
  keeper: CertificateKeeper,
  log: Logger,
  onRenewed: () => void = () => {},
  expression = '17 3 * * *',
) {
  const renew = () =>
    keeper
      .renewIfDue()
      .then((renewed) => renewed && onRenewed())
      .catch((error: unknown) => log.warn({ err: error }, 'certificate renewal failed; retried tomorrow'));
  const task = cron.schedule(expression, renew);
  // An appliance switched off at 03:17 for weeks would otherwise wait a day past its chance.
  void renew();
  return () => void task.stop();
}
