/**
 * Word of device certificates as they are revoked, for whoever must act on it at once (the fleet
 * link pushes them to the stores). Told after the revocation committed, on the replica that made
 * it; a listener that fails is logged and never fails the revocation.
 */
import { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import { parseDeviceIdentityUri, sanUris } from '../../shared/devices/identity.ts';
import type { DeviceCertificateRow, RevocationReason } from './tables.ts';

export interface RevokedCertificateNotice {
  serial: string;
  device_id: string;
  revoked_at: string;
  reason: RevocationReason;
  not_after: string;
  /**
   * The store its certificate names (its SAN URI), whose broker alone admits it; undefined when
   * the certificate names none that can be read.
   */
  location_id: string | undefined;
}

export interface RevocationNotice {
  tenantId: string;
  certificates: RevokedCertificateNotice[];
}

export type RevocationListener = (notice: RevocationNotice) => void;

function locationOf(pem: string) {
  try {
    const uris = sanUris(new X509Certificate(pem).subjectAltName);
    const devices = uris.map(parseDeviceIdentityUri).filter((device) => device !== undefined);
    return devices.length === 1 ? devices[0]!.locationId : undefined;
  } catch {
    return undefined;
  }
}

/** The notice of a certificate row as it was just revoked. */
export const revokedNotice = (
  row: Pick<DeviceCertificateRow, 'serial' | 'device_id' | 'not_after' | 'certificate_pem'>,
  revocation: { at: string; reason: RevocationReason },
): RevokedCertificateNotice => ({
  serial: row.serial,
  device_id: row.device_id,
  revoked_at: revocation.at,
  reason: revocation.reason,
  not_after: row.not_after,
  location_id: locationOf(row.certificate_pem),
});

export function createRevocationNotices(log: Logger) {
  const listeners = new Set<RevocationListener>();
  return {
    on(listener: RevocationListener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    tell(notice: RevocationNotice) {
      if (notice.certificates.length === 0) return;
      for (const listener of listeners) {
        try {
          listener(notice);
        } catch (error) {
          log.error({ err: error, tenantId: notice.tenantId }, 'a revocation listener failed');
        }
      }
    },
  };
}

export type RevocationNotices = ReturnType<typeof createRevocationNotices>;
