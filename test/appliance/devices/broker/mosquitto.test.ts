import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceTopic, storeChannelFilter } from '../../../../shared/mqtt/topics.ts';
import { expired, type IssuedCert, writeCertFiles } from '../../../support/device-certs.ts';
import { type Pki, STORE, startTestBroker, type TestBroker, testPki, waitFor } from './support.ts';

/**
 * Interop with clients we did not write: Debian's mosquitto_pub and mosquitto_sub (mosquitto-clients)
 * against the broker over TLS with client certificates.
 */
const MANAGER = '01900000-0000-7000-8000-000000000001';
const fridge = { deviceType: 'sensor' as const, locationId: STORE, deviceId: 'fridge-1' };
const telemetry = deviceTopic({ ...fridge, channel: 'telemetry' });

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let pki: Pki;
let rig: TestBroker;
let dir: string;
const revoked = new Set<string>();

beforeAll(async () => {
  pki = await testPki();
  rig = await startTestBroker(pki, { isRevoked: (serial) => revoked.has(serial) });
  dir = mkdtempSync(join(tmpdir(), 'mosquitto-interop-'));
  writeCertFiles(dir, 'ca', { cert: pki.ca.cert, key: '' });
});
afterAll(async () => {
  await rig.close();
  rmSync(dir, { recursive: true, force: true });
});

function tlsArgs(name: string, cert: IssuedCert, clientId: string) {
  const files = writeCertFiles(dir, name, cert);
  return [
    '-h',
    '127.0.0.1',
    '-p',
    String(rig.broker.tlsPort),
    '--cafile',
    join(dir, 'ca.crt'),
    '--cert',
    files.cert,
    '--key',
    files.key,
    '-i',
    clientId,
    '-V',
    'mqttv311',
  ];
}

const run = (command: string, args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(command, args, { timeout: 15_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

/** mosquitto_sub in the background, resolved once the broker has its subscription. */
async function subscriber(args: string[], clientId: string) {
  const subscribed = new Promise<void>((resolve) =>
    rig.broker.aedes.on('subscribe', (_subs, client) => client.id === clientId && resolve()),
  );
  const child = spawn('mosquitto_sub', args);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  await Promise.race([subscribed, done]);
  return { done, kill: () => child.kill() };
}

describe('mosquitto clients over TLS', () => {
  it('a device publishes telemetry with mosquitto_pub and a manager receives it with mosquitto_sub', async () => {
    const manager = await pki.ca.staff(MANAGER, ['manager'], STORE);
    const sub = await subscriber(
      [
        ...tlsArgs('manager', manager, MANAGER),
        '-t',
        storeChannelFilter(STORE, 'telemetry'),
        '-q',
        '1',
        '-C',
        '1',
        '-W',
        '10',
        '-v',
      ],
      MANAGER,
    );
    const device = await pki.ca.device(fridge.deviceType, STORE, fridge.deviceId);
    const pub = await run('mosquitto_pub', [
      ...tlsArgs('fridge', device, fridge.deviceId),
      '-t',
      telemetry,
      '-m',
      '{"temperature_c":3.9}',
      '-q',
      '1',
    ]);
    expect(pub).toMatchObject({ code: 0 });
    const received = await sub.done;
    expect(received.code).toBe(0);
    expect(received.stdout.trim()).toBe(`${telemetry} {"temperature_c":3.9}`);
  });

  it("a publish to another device's topic is acknowledged, never delivered, and logged as denied", async () => {
    const manager = await pki.ca.staff(MANAGER, ['manager'], STORE);
    const sub = await subscriber(
      [
        ...tlsArgs('manager2', manager, `${MANAGER}:2`),
        '-t',
        storeChannelFilter(STORE, 'telemetry'),
        '-q',
        '1',
        '-C',
        '1',
        '-W',
        '2',
        '-v',
      ],
      `${MANAGER}:2`,
    );
    const device = await pki.ca.device(fridge.deviceType, STORE, 'fridge-2');
    const pub = await run('mosquitto_pub', [
      ...tlsArgs('fridge2', device, 'fridge-2'),
      '-t',
      telemetry,
      '-m',
      'forged',
      '-q',
      '1',
    ]);
    expect(pub.code).toBe(0); // MQTT 3.1.1 cannot refuse a PUBLISH: acknowledged, dropped
    const received = await sub.done;
    expect(received.stdout).toBe('');
    expect(received.stderr).toMatch(/[Tt]imed out/);
    expect(rig.find('publish denied; dropped').at(-1)).toMatchObject({
      clientId: 'fridge-2',
      topic: telemetry,
      reason: "another device's topic",
    });
  });

  it('a device subscribing to a forbidden filter gets a SUBACK failure', async () => {
    const device = await pki.ca.device(fridge.deviceType, STORE, 'fridge-3');
    const sub = await run('mosquitto_sub', [
      ...tlsArgs('fridge3', device, 'fridge-3'),
      '-t',
      storeChannelFilter(STORE, 'telemetry'),
      '-W',
      '5',
    ]);
    // mosquitto_sub 2.0 reports the refusal and leaves (with status 0).
    expect(sub.stderr).toMatch(/All subscription requests were denied/);
    expect(rig.find('subscribe denied').at(-1)).toMatchObject({ clientId: 'fridge-3' });
  });

  it('an expired certificate is refused in the handshake', async () => {
    const device = await pki.ca.device(fridge.deviceType, STORE, 'fridge-old', expired());
    const pub = await run('mosquitto_pub', [
      ...tlsArgs('old', device, 'fridge-old'),
      '-t',
      telemetry,
      '-m',
      'x',
      '-q',
      '1',
    ]);
    expect(pub.code).not.toBe(0);
    expect(rig.find('client connected').some((line) => line.clientId === 'fridge-old')).toBe(false);
  });

  it('a revoked certificate is refused at connect (not authorised)', async () => {
    const device = await pki.ca.device(fridge.deviceType, STORE, 'fridge-revoked');
    revoked.add(device.serial);
    const pub = await run('mosquitto_pub', [
      ...tlsArgs('revoked', device, 'fridge-revoked'),
      '-t',
      telemetry,
      '-m',
      'x',
      '-q',
      '1',
    ]);
    expect(pub.code).not.toBe(0);
    expect(pub.stderr).toMatch(/not authori[sz]ed/i);
    await waitFor(() => rig.find('connection refused').some((line) => line.clientId === 'fridge-revoked'));
  });
});
