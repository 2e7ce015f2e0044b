import { describe, expect, it } from 'vitest';
import { identityFromCertificate } from '../../../../appliance/devices/broker/identity.ts';
import { normalizeSerial, sanUris } from '../../../../shared/devices/identity.ts';

const STORE = '01900000-0000-7000-8000-0000000000c3';
const device = (overrides: object = {}) => ({
  subject: { CN: 'fridge-1' },
  subjectaltname: `URI:urn:edge:device:sensor:${STORE}:fridge-1, URI:urn:edge:tenant:t-1`,
  serialNumber: '00AB12',
  ...overrides,
});

describe('identityFromCertificate', () => {
  it('reads a device from the cloud CA’s layout (CN and the device URI; the tenant URI is ignored)', () => {
    expect(identityFromCertificate(device())).toEqual({
      ok: true,
      serial: 'ab12',
      principal: { kind: 'device', deviceType: 'sensor', locationId: STORE, deviceId: 'fridge-1' },
    });
  });

  it('reads a staff screen with one OU per role', () => {
    const cert = {
      subject: { CN: 'u-1', OU: ['manager', 'staff'] },
      subjectaltname: `URI:urn:edge:staff:${STORE}:u-1`,
      serialNumber: '4F',
    };
    expect(identityFromCertificate(cert)).toMatchObject({
      ok: true,
      principal: { kind: 'staff', userId: 'u-1', roles: ['manager', 'staff'], locationId: STORE },
    });
  });

  it.each([
    [
      'a CN that differs from the device id',
      device({ subject: { CN: 'fridge-2' } }),
      'CN differs from the device id',
    ],
    [
      'an OU that differs from the type',
      device({ subject: { CN: 'fridge-1', OU: 'kds' } }),
      'OU differs from the device type',
    ],
    [
      'an unknown device type',
      device({ subjectaltname: `URI:urn:edge:device:toaster:${STORE}:fridge-1` }),
      'malformed device URI',
    ],
    [
      'no identity URI',
      device({ subjectaltname: 'DNS:fridge.local' }),
      'expected exactly one device or staff SAN URI',
    ],
    [
      'two identity URIs',
      device({
        subjectaltname: `URI:urn:edge:device:sensor:${STORE}:fridge-1, URI:urn:edge:staff:${STORE}:fridge-1`,
      }),
      'expected exactly one device or staff SAN URI',
    ],
  ])('refuses %s', (_name, cert, reason) => {
    expect(identityFromCertificate(cert)).toEqual({ ok: false, reason });
  });
});

describe('helpers', () => {
  it('reads JSON-quoted SAN values as Node prints them', () => {
    expect(sanUris('DNS:a, URI:"urn:edge:x\\u002c y", URI:urn:b')).toEqual(['urn:edge:x, y', 'urn:b']);
  });

  it('normalizes serials to lower-case hex without leading zeros', () => {
    expect(normalizeSerial('00AB12')).toBe('ab12');
    expect(normalizeSerial('0')).toBe('0');
  });
});
