import { describe, expect, it } from 'vitest';
import { deviceOfCertificate } from '../../../shared/devices/identity.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const STORE = '01900000-0000-7000-8000-0000000000c3';
const APPLIANCE = '01900000-0000-7000-8000-0000000000f1';
const certificate = (overrides: object = {}) => ({
  subject: { CN: APPLIANCE },
  subjectaltname: `URI:urn:edge:device:appliance:${STORE}:${APPLIANCE}, URI:urn:edge:tenant:${TENANT}`,
  serialNumber: '00AB12',
  ...overrides,
});

describe('the device a certificate of our CA names, for the cloud', () => {
  it('reads device, store and tenant from the SAN URIs, the serial normalised', () => {
    expect(deviceOfCertificate(certificate())).toEqual({
      deviceType: 'appliance',
      locationId: STORE,
      deviceId: APPLIANCE,
      tenantId: TENANT,
      serial: 'ab12',
    });
  });

  it.each([
    ['no tenant URI', { subjectaltname: `URI:urn:edge:device:appliance:${STORE}:${APPLIANCE}` }],
    [
      'two device URIs',
      {
        subjectaltname: `URI:urn:edge:device:appliance:${STORE}:${APPLIANCE}, URI:urn:edge:device:kds:${STORE}:x, URI:urn:edge:tenant:${TENANT}`,
      },
    ],
    ['a CN that disagrees', { subject: { CN: 'someone-else' } }],
    ['no serial', { serialNumber: undefined }],
    [
      'an unknown device type',
      { subjectaltname: `URI:urn:edge:device:toaster:${STORE}:${APPLIANCE}, URI:urn:edge:tenant:${TENANT}` },
    ],
  ])('names nobody with %s', (_what, overrides) => {
    expect(deviceOfCertificate(certificate(overrides))).toBeUndefined();
  });
});
