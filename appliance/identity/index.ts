/**
 * The appliance's identity from the cloud's device CA, kept in `<data dir>/identity`: its key
 * (made here, never sent), its certificate, the CA's certificate and the sync credential the same
 * enrolment gave. The store's broker serves TLS with that certificate, the fleet link may sign in
 * with it, and sync uses the credential, unless the environment names others.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { systemClock } from '../../shared/clock.ts';
import { createCertificateKeeper, identityFiles } from './certificate.ts';

export { createCertificateKeeper, scheduleRenewal } from './certificate.ts';

export const identityDir = (dataDir: string) => join(dataDir, 'identity');

/** Renew when fewer days than this remain of the certificate (the CA issues 90). */
export const RENEW_WITHIN_DAYS = 30;

export interface ApplianceIdentity {
  dir: string;
  deviceId: string;
  keyFile: string;
  certFile: string;
  caFile: string;
  /** The `sak_…` credential, when the enrolment was an appliance's (it always is, from the cloud). */
  syncCredential: string | undefined;
}

/** What an earlier enrolment left on disk, or undefined if there was none (or it is incomplete). */
export function readIdentity(dataDir: string): ApplianceIdentity | undefined {
  const dir = identityDir(dataDir);
  const files = identityFiles(dir);
  if (![files.key, files.cert, files.ca, files.id].every((file) => existsSync(file))) return undefined;
  const credential = existsSync(files.syncCredential)
    ? readFileSync(files.syncCredential, 'utf8').trim()
    : undefined;
  return {
    dir,
    deviceId: readFileSync(files.id, 'utf8').trim(),
    keyFile: files.key,
    certFile: files.cert,
    caFile: files.ca,
    syncCredential: credential || undefined,
  };
}

export interface EnrolmentRequest {
  dataDir: string;
  cloudUrl: string | undefined;
  enrollmentToken: string | undefined;
  log: Logger;
}

/**
 * Enrols once: with no identity on disk, a one-time token and the cloud's URL, trades the token
 * and a CSR for the certificate and credential. A failure is logged, not thrown: the store sells
 * without the cloud, and the next start tries again (a token is spent only by a success).
 */
export async function enrolIfNeeded(request: EnrolmentRequest): Promise<'present' | 'enrolled' | 'none'> {
  if (readIdentity(request.dataDir)) return 'present';
  if (!request.enrollmentToken || !request.cloudUrl) return 'none';
  const keeper = createCertificateKeeper({
    dir: identityDir(request.dataDir),
    cloudUrl: request.cloudUrl,
    clock: systemClock,
    log: request.log,
    renewWithinDays: RENEW_WITHIN_DAYS,
  });
  try {
    const issued = await keeper.enrol(request.enrollmentToken);
    request.log.info({ deviceId: issued.device_id, expiresAt: issued.expires_at }, 'appliance enrolled');
    return 'enrolled';
  } catch (error) {
    request.log.error(
      { err: error },
      'enrolment failed; the appliance runs without its identity until the next start',
    );
    return 'none';
  }
}
export { CATCH_UP_WAIT_MS, createRevocationList, type RevocationList } from './revocations.ts';
