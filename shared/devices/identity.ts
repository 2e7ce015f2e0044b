/**
 * How a device's identity is written in its certificate, for the cloud's CA that writes it and the
 * appliance broker that reads it: subject CN = device id, and two SAN URIs,
 * `urn:edge:device:<device_type>:<location_id>:<device_id>` (what the broker's topic ACL needs) and
 * `urn:edge:tenant:<tenant_id>`. The registry decides these values, never the device's CSR.
 */
import { DEVICE_TYPES, type DeviceType } from '../mqtt/topics.ts';

export interface DeviceIdentity {
  tenantId: string;
  locationId: string;
  deviceId: string;
  deviceType: DeviceType;
}

const DEVICE_URN = 'urn:edge:device:';
const TENANT_URN = 'urn:edge:tenant:';
// Ids become URN and topic parts: no separators, wildcards or spaces.
const PART = /^[A-Za-z0-9._-]{1,128}$/;

function part(value: string, name: string) {
  if (!PART.test(value)) throw new RangeError(`${name} cannot be part of a device identity: "${value}"`);
  return value;
}

export const deviceIdentityUri = (identity: Omit<DeviceIdentity, 'tenantId'>) =>
  `${DEVICE_URN}${part(identity.deviceType, 'device type')}:${part(identity.locationId, 'location id')}:${part(identity.deviceId, 'device id')}`;

export const tenantIdentityUri = (tenantId: string) => `${TENANT_URN}${part(tenantId, 'tenant id')}`;

/** The device part of a `urn:edge:device:` URI, or undefined when it is not one. */
export function parseDeviceIdentityUri(uri: string): Omit<DeviceIdentity, 'tenantId'> | undefined {
  if (!uri.startsWith(DEVICE_URN)) return undefined;
  const parts = uri.slice(DEVICE_URN.length).split(':');
  if (parts.length !== 3 || !parts.every((value) => PART.test(value))) return undefined;
  const [deviceType, locationId, deviceId] = parts as [string, string, string];
  if (!(DEVICE_TYPES as readonly string[]).includes(deviceType)) return undefined;
  return { deviceType: deviceType as DeviceType, locationId, deviceId };
}

/** The tenant of a `urn:edge:tenant:` URI, or undefined when it is not one. */
export function parseTenantIdentityUri(uri: string): string | undefined {
  if (!uri.startsWith(TENANT_URN)) return undefined;
  const tenantId = uri.slice(TENANT_URN.length);
  return PART.test(tenantId) ? tenantId : undefined;
}

/** The parts of `tls.TLSSocket#getPeerCertificate()` an identity is read from. */
export interface PeerCertificateLike {
  subject?: Record<string, string | string[] | undefined> | undefined;
  subjectaltname?: string | undefined;
  serialNumber?: string | undefined;
}

/** Lower-case hex without leading zeros: Node and X.509 libraries disagree on padding. */
export const normalizeSerial = (serial: string) => serial.toLowerCase().replace(/^0+(?=.)/, '');

/** `URI:` entries of Node's `subjectaltname` string (values with odd characters come JSON-quoted). */
export function sanUris(subjectaltname: string | undefined): string[] {
  if (!subjectaltname) return [];
  const uris: string[] = [];
  for (const entry of subjectaltname.split(', ')) {
    if (!entry.startsWith('URI:')) continue;
    const raw = entry.slice(4);
    try {
      uris.push(raw.startsWith('"') ? (JSON.parse(raw) as string) : raw);
    } catch {
      // A malformed entry identifies nobody.
    }
  }
  return uris;
}

/**
 * The device and tenant a verified certificate of our CA names (for the cloud, which serves every
 * tenant, the tenant URI matters): exactly one of each URI, and a CN that agrees; else undefined.
 */
export function deviceOfCertificate(
  cert: PeerCertificateLike,
): (DeviceIdentity & { serial: string }) | undefined {
  const uris = sanUris(cert.subjectaltname);
  const devices = uris.filter((uri) => uri.startsWith(DEVICE_URN));
  const tenants = uris.filter((uri) => uri.startsWith(TENANT_URN));
  if (devices.length !== 1 || tenants.length !== 1 || !cert.serialNumber) return undefined;
  const device = parseDeviceIdentityUri(devices[0]!);
  const tenantId = parseTenantIdentityUri(tenants[0]!);
  const commonName = [cert.subject?.CN].flat()[0];
  if (!device || !tenantId || commonName !== device.deviceId) return undefined;
  return { ...device, tenantId, serial: normalizeSerial(cert.serialNumber) };
}
