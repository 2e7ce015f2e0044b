import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadApplianceConfig } from '../../../appliance/config.ts';

const STORE_ENV = {
  TENANT_ID: '01900000-0000-7000-8000-0000000000a1',
  LOCATION_ID: '01900000-0000-7000-8000-0000000000c3',
};
const dir = mkdtempSync(join(tmpdir(), 'appliance-mqtt-config-'));
const file = (name: string) => {
  const path = join(dir, name);
  writeFileSync(path, 'pem');
  return path;
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('appliance MQTT settings', () => {
  it('default to no plain TCP, TLS off without material, port 8883 and prefix edge', () => {
    expect(loadApplianceConfig(STORE_ENV).mqtt).toEqual({
      prefix: 'edge',
      tcpPort: undefined,
      tlsPort: 8883,
      tls: undefined,
    });
  });

  it('read the dev TCP port, the TLS files and the prefix', () => {
    const env = {
      ...STORE_ENV,
      APPLIANCE_MQTT_PORT: '1884',
      APPLIANCE_MQTT_TLS_PORT: '18883',
      APPLIANCE_MQTT_TLS_KEY: file('server.key'),
      APPLIANCE_MQTT_TLS_CERT: file('server.crt'),
      APPLIANCE_MQTT_TLS_CA: file('ca.crt'),
      APPLIANCE_MQTT_PREFIX: 'acme',
    };
    expect(loadApplianceConfig(env).mqtt).toEqual({
      prefix: 'acme',
      tcpPort: 1884,
      tlsPort: 18883,
      tls: {
        keyFile: env.APPLIANCE_MQTT_TLS_KEY,
        certFile: env.APPLIANCE_MQTT_TLS_CERT,
        caFile: env.APPLIANCE_MQTT_TLS_CA,
        crlFile: undefined,
      },
    });
  });

  it.each([
    [{ APPLIANCE_MQTT_PORT: 'x' }, /APPLIANCE_MQTT_PORT must be a whole number/],
    [{ APPLIANCE_MQTT_TLS_PORT: '70000' }, /APPLIANCE_MQTT_TLS_PORT must be a whole number/],
    [{ APPLIANCE_MQTT_PREFIX: 'a/b' }, /APPLIANCE_MQTT_PREFIX must be one topic level/],
    [{ APPLIANCE_MQTT_TLS_KEY: '/nowhere/key.pem' }, /APPLIANCE_MQTT_TLS_KEY: no such file/],
    [
      { APPLIANCE_MQTT_TLS_KEY: join(dir, 'server.key') },
      /go together; set APPLIANCE_MQTT_TLS_KEY without the others/,
    ],
  ])('refuse %o', (env, message) => {
    file('server.key');
    expect(() => loadApplianceConfig({ ...STORE_ENV, ...env })).toThrow(message);
  });
});
