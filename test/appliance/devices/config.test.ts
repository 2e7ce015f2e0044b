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
  it('default to no plain TCP (on loopback when on), TLS off without material, port 8883, prefix edge and 256 KiB packets', () => {
    expect(loadApplianceConfig(STORE_ENV).mqtt).toEqual({
      prefix: 'edge',
      tcpPort: undefined,
      tcpHost: '127.0.0.1',
      maxPacketBytes: 256 * 1024,
      tlsPort: 8883,
      tls: undefined,
    });
  });

  it('keep the plain TCP listener on loopback whatever APPLIANCE_HOST says, unless APPLIANCE_MQTT_HOST names an address', () => {
    const env = { ...STORE_ENV, APPLIANCE_HOST: '0.0.0.0', APPLIANCE_MQTT_PORT: '1884' };
    expect(loadApplianceConfig(env).mqtt.tcpHost).toBe('127.0.0.1');
    expect(loadApplianceConfig({ ...env, APPLIANCE_MQTT_HOST: '0.0.0.0' }).mqtt.tcpHost).toBe('0.0.0.0');
    expect(loadApplianceConfig({ ...env, APPLIANCE_MQTT_HOST: '::1' }).mqtt.tcpHost).toBe('::1');
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
      APPLIANCE_MQTT_HOST: '192.168.1.10',
      APPLIANCE_MQTT_MAX_PACKET_BYTES: '65536',
    };
    expect(loadApplianceConfig(env).mqtt).toEqual({
      prefix: 'acme',
      tcpPort: 1884,
      tcpHost: '192.168.1.10',
      maxPacketBytes: 65536,
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
    [{ APPLIANCE_MQTT_HOST: 'store.example' }, /APPLIANCE_MQTT_HOST must be an IP address/],
    [
      { APPLIANCE_MQTT_MAX_PACKET_BYTES: '1024' },
      /APPLIANCE_MQTT_MAX_PACKET_BYTES must be a whole number from 16384 to 16777216/,
    ],
    [
      { APPLIANCE_MQTT_MAX_PACKET_BYTES: '268435456' },
      /APPLIANCE_MQTT_MAX_PACKET_BYTES must be a whole number/,
    ],
    [{ APPLIANCE_MQTT_MAX_PACKET_BYTES: '256k' }, /APPLIANCE_MQTT_MAX_PACKET_BYTES must be a whole number/],
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
