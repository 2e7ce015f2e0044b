import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, readlink, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUpdater, type UpdateProgress } from '../../../appliance/fleet/updater.ts';
import { type SignedUpdate, signManifest } from '../../../shared/devices/update-manifest.ts';

const keys = generateKeyPairSync('ed25519');
const otherKeys = generateKeyPairSync('ed25519');

describe('over-the-air updates', () => {
  let dir: string;
  let server: Server;
  let base: string;
  let requests: string[];
  const artifacts = new Map<string, Buffer>();
  let slow = false;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'updater-'));
    requests = [];
    slow = false;
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const body = artifacts.get(req.url ?? '');
      if (!body) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-length': body.length });
      if (!slow) {
        res.end(body);
        return;
      }
      res.write(body.subarray(0, 1024)); // and then nothing: a stalled mirror
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const publish = (version: string, bytes: Buffer, key = keys.privateKey): SignedUpdate => {
    artifacts.set(`/${version}.tar`, bytes);
    return signManifest(
      {
        version,
        url: `${base}/${version}.tar`,
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
      key,
    );
  };

  const updater = (healthy: (version: string) => boolean = () => true, progress: UpdateProgress[] = []) =>
    createUpdater({
      dir,
      publicKey: keys.publicKey,
      healthCheck: async (_dir, version) => healthy(version),
      onProgress: (p) => progress.push(p),
      log: pino({ level: 'silent' }),
    });

  it('downloads with progress, checks and switches to a signed update', async () => {
    const progress: UpdateProgress[] = [];
    const bytes = Buffer.alloc(300_000, 7);
    const outcome = await updater(() => true, progress).apply(publish('2.0.0', bytes));
    expect(outcome).toEqual({ state: 'applied', version: '2.0.0', previous: undefined });
    expect(await readlink(join(dir, 'current'))).toBe(join('versions', '2.0.0'));
    expect(readFileSync(join(dir, 'current', 'artifact'))).toEqual(bytes);
    expect(progress.at(-1)).toEqual({ version: '2.0.0', received: bytes.length, total: bytes.length });
    expect(progress.length).toBeGreaterThan(1);
  });

  it('refuses an update signed by another key, or changed after signing, before fetching a byte', async () => {
    const forged = publish('2.0.0', Buffer.from('evil'), otherKeys.privateKey);
    expect(await updater().apply(forged)).toMatchObject({
      state: 'refused',
      reason: expect.stringContaining('signature'),
    });
    const tampered = { ...publish('2.0.1', Buffer.from('good')), url: `${base}/elsewhere.tar` };
    expect(await updater().apply(tampered)).toMatchObject({ state: 'refused' });
    expect(requests).toEqual([]);
  });

  it('throws away bytes that are not the ones the manifest pins, and keeps the running version', async () => {
    const first = updater();
    await first.apply(publish('1.0.0', Buffer.from('one')));
    const update = publish('2.0.0', Buffer.from('two'));
    artifacts.set('/2.0.0.tar', Buffer.from('TWO'));
    expect(await first.apply(update)).toMatchObject({
      state: 'failed',
      reason: expect.stringContaining('SHA-256'),
    });
    expect(await first.current()).toBe('1.0.0');
  });

  it('rolls back to the previous version when the new one fails its health check', async () => {
    const machine = updater((version) => version !== '2.0.0');
    await machine.apply(publish('1.0.0', Buffer.from('one')));
    expect(await machine.apply(publish('2.0.0', Buffer.from('two')))).toMatchObject({
      state: 'rolled_back',
      previous: '1.0.0',
    });
    expect(await machine.current()).toBe('1.0.0');
  });

  it('cancels a download in progress', async () => {
    slow = true;
    const controller = new AbortController();
    const running = updater().apply(publish('3.0.0', Buffer.alloc(100_000, 1)), controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    expect(await running).toEqual({ state: 'cancelled', version: '3.0.0' });
  });

  it('finishes or undoes an apply a crash cut short, at the next start', async () => {
    // What a crash after the switch and before the health check leaves behind.
    for (const version of ['1.0.0', '2.0.0']) {
      await mkdir(join(dir, 'versions', version), { recursive: true });
      await writeFile(join(dir, 'versions', version, 'artifact'), version);
    }
    await symlink(join('versions', '2.0.0'), join(dir, 'current'));
    await writeFile(
      join(dir, 'state.json'),
      JSON.stringify({ applying: { version: '2.0.0', previous: '1.0.0' } }),
    );
    const restarted = updater((version) => version !== '2.0.0');
    expect(await restarted.recover()).toMatchObject({ state: 'rolled_back', version: '2.0.0' });
    expect(await restarted.current()).toBe('1.0.0');
    expect(await restarted.recover()).toBeUndefined();
  });
});
