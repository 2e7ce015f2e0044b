import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { LOCATION, TENANT } from '../../support/appliance.ts';

const APPLIANCE = '01900000-0000-7000-8000-0000000000f1';
const CREDENTIAL = `sak_${APPLIANCE}.${'s'.repeat(24)}`;
const load = (env: Record<string, string>) =>
  loadApplianceConfig({ TENANT_ID: TENANT, LOCATION_ID: LOCATION, ...env });

describe('fleet and device configuration', () => {
  it('leaves the fleet link off until its URL is set, and signs in as the credential’s appliance', () => {
    expect(load({}).fleet).toBeUndefined();
    expect(
      load({ APPLIANCE_FLEET_URL: 'mqtt://cloud:1883', APPLIANCE_CLOUD_CREDENTIAL: CREDENTIAL }).fleet,
    ).toEqual({
      url: 'mqtt://cloud:1883',
      prefix: 'edge',
      applianceId: APPLIANCE,
      credential: CREDENTIAL,
      tls: undefined,
      updatePublicKeyFile: undefined,
    });
  });

  it('names the variable at fault', () => {
    expect(() => load({ APPLIANCE_FLEET_URL: 'mqtt://cloud:1883' })).toThrow(
      /needs APPLIANCE_CLOUD_CREDENTIAL/,
    );
    expect(() =>
      load({ APPLIANCE_FLEET_URL: 'http://cloud', APPLIANCE_CLOUD_CREDENTIAL: CREDENTIAL }),
    ).toThrow(/APPLIANCE_FLEET_URL must be/);
    expect(() =>
      load({
        APPLIANCE_FLEET_URL: 'mqtt://c',
        APPLIANCE_CLOUD_CREDENTIAL: CREDENTIAL,
        APPLIANCE_FLEET_PREFIX: 'a/b',
      }),
    ).toThrow(/APPLIANCE_FLEET_PREFIX/);
    expect(() =>
      load({
        APPLIANCE_FLEET_URL: 'mqtt://c',
        APPLIANCE_CLOUD_CREDENTIAL: CREDENTIAL,
        APPLIANCE_FLEET_TLS_KEY: '/nope',
      }),
    ).toThrow(/APPLIANCE_FLEET_TLS_KEY: no such file/);
    expect(() => load({ APPLIANCE_UPDATE_PUBLIC_KEY: '/nope.pem' })).toThrow(
      /APPLIANCE_UPDATE_PUBLIC_KEY: no such file/,
    );
    expect(() => load({ APPLIANCE_TELEMETRY_RETENTION_DAYS: '0' })).toThrow(
      /APPLIANCE_TELEMETRY_RETENTION_DAYS/,
    );
  });

  it('keeps telemetry a week and waits 30 s for a device by default', () => {
    expect(load({}).devices).toEqual({ telemetryRetentionDays: 7, commandTimeoutMs: 30_000 });
    expect(load({ APPLIANCE_TELEMETRY_RETENTION_DAYS: '30' }).devices.telemetryRetentionDays).toBe(30);
  });

  it('takes the fleet TLS files together only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-config-'));
    const files = ['key', 'cert', 'ca'].map((name) => {
      const file = join(dir, `${name}.pem`);
      writeFileSync(file, 'x');
      return file;
    });
    const base = { APPLIANCE_FLEET_URL: 'mqtts://cloud:8883', APPLIANCE_CLOUD_CREDENTIAL: CREDENTIAL };
    expect(() => load({ ...base, APPLIANCE_FLEET_TLS_KEY: files[0]! })).toThrow(/go together/);
    const tls = load({
      ...base,
      APPLIANCE_FLEET_TLS_KEY: files[0]!,
      APPLIANCE_FLEET_TLS_CERT: files[1]!,
      APPLIANCE_FLEET_TLS_CA: files[2]!,
    }).fleet?.tls;
    expect(tls).toEqual({ keyFile: files[0], certFile: files[1], caFile: files[2] });
  });
});
