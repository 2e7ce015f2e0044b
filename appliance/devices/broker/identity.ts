/**
 * A TLS client's identity, read from the certificate the device CA issued it.
 *
 * - device: the layout of shared/devices/identity.ts, which the cloud's CA writes: subject
 *   `CN=<device_id>` and a SAN URI `urn:edge:device:<device_type>:<location_id>:<device_id>` (plus
 *   `urn:edge:tenant:<tenant_id>`, not needed here: location ids are unique across tenants);
 * - staff screen: subject `CN=<user_id>`, one `OU=<role>` per role, and a SAN URI
 *   `urn:edge:staff:<location_id>:<user_id>`.
 *
 * The SAN URI is authoritative (it carries the location, which a subject has no fitting field for);
 * CN (and a device's OU, when present) must agree with it, so a certificate issued with a mistake
 * is refused rather than read two ways.
 */
import {
  deviceIdentityUri,
  normalizeSerial,
  type PeerCertificateLike,
  parseDeviceIdentityUri,
  sanUris,
} from '../../../shared/devices/identity.ts';
import type { DeviceType } from '../../../shared/mqtt/topics.ts';
import type { BrokerPrincipal } from './acl.ts';

export type CertificateIdentity =
  | { ok: true; principal: Extract<BrokerPrincipal, { kind: 'device' | 'staff' }>; serial: string }
  | { ok: false; reason: string };

// The rule of shared/devices/identity.ts: ids become URN and topic parts.
const PART = /^[A-Za-z0-9._-]{1,128}$/;

export const deviceUrn = (deviceType: DeviceType, locationId: string, deviceId: string) =>
  deviceIdentityUri({ deviceType, locationId, deviceId });
export const staffUrn = (locationId: string, userId: string) => `urn:edge:staff:${locationId}:${userId}`;

const values = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

const STAFF_URN = 'urn:edge:staff:';
const isIdentityUri = (uri: string) => uri.startsWith('urn:edge:device:') || uri.startsWith(STAFF_URN);

function fromUri(uri: string, subject: Record<string, string | string[] | undefined>) {
  const commonName = values(subject.CN)[0];
  const units = values(subject.OU);
  if (uri.startsWith(STAFF_URN)) {
    const parts = uri.slice(STAFF_URN.length).split(':');
    const [locationId, userId] = parts as [string, string];
    if (parts.length !== 2 || !parts.every((part) => PART.test(part))) return 'malformed staff URI';
    if (commonName !== userId) return 'CN differs from the user id';
    return { kind: 'staff' as const, userId, roles: units, locationId };
  }
  const device = parseDeviceIdentityUri(uri);
  if (!device) return 'malformed device URI';
  if (commonName !== device.deviceId) return 'CN differs from the device id';
  if (units.length > 0 && !units.includes(device.deviceType)) return 'OU differs from the device type';
  return { kind: 'device' as const, ...device };
}

/** The principal a verified client certificate names, or why it names none. */
export function identityFromCertificate(cert: PeerCertificateLike): CertificateIdentity {
  const uris = sanUris(cert.subjectaltname).filter(isIdentityUri);
  if (uris.length !== 1) return { ok: false, reason: 'expected exactly one device or staff SAN URI' };
  const principal = fromUri(uris[0]!, cert.subject ?? {});
  if (typeof principal === 'string') return { ok: false, reason: principal };
  if (!cert.serialNumber) return { ok: false, reason: 'no serial number' };
  return { ok: true, principal, serial: normalizeSerial(cert.serialNumber) };
}
