import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApplianceApp } from '../../appliance/app.ts';
import { loadApplianceConfig } from '../../appliance/config.ts';
import { openApplianceDb } from '../../appliance/db/index.ts';
import { createManualClock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { entryArgs } from '../support/entries.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const STORE_ENV = {
  TENANT_ID: '01900000-0000-7000-8000-0000000000a1',
  LOCATION_ID: '01900000-0000-7000-8000-0000000000c3',
};

describe('appliance process', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'appliance-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the shared conventions: health with its store, request ids, 404 envelope, docs, metrics', async () => {
    const db = openApplianceDb(tempDir());
    const app = await buildApplianceApp(
      { ...loadApplianceConfig(STORE_ENV), logLevel: 'silent' },
      { db, clock: createManualClock(), newId },
    );
    const health = await app.inject({ url: '/health', headers: { 'x-request-id': 'kds-2' } });
    expect(health.json()).toMatchObject({
      data: { status: 'ok', checks: { database: 'ok' } },
      meta: { request_id: 'kds-2' },
    });
    const missing = await app.inject({ url: '/v1/commerce/nothing' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
    expect((await app.inject({ url: '/openapi.json' })).json().info.title).toBe('Edge appliance local API');
    expect((await app.inject({ url: '/metrics' })).body).toContain(
      'appliance_http_request_duration_seconds_count',
    );
    await app.close();
    db.close();
  });

  it('refuses bad configuration, naming the variable', () => {
    const bad = (env: Record<string, string>) => () => loadApplianceConfig({ ...STORE_ENV, ...env });
    expect(bad({ APPLIANCE_PORT: '99999' })).toThrow(/APPLIANCE_PORT/);
    expect(bad({ LOCATION_ID: 'store-1' })).toThrow(/LOCATION_ID must be a UUID/);
    expect(bad({ CLOUD_URL: 'ftp://x' })).toThrow(/CLOUD_URL/);
    expect(bad({ APPLIANCE_TIMEZONE: 'Mars/Olympus' })).toThrow(/APPLIANCE_TIMEZONE/);
    expect(() => loadApplianceConfig({ LOCATION_ID: STORE_ENV.LOCATION_ID })).toThrow(
      /TENANT_ID is required/,
    );
    expect(() => loadApplianceConfig({ TENANT_ID: STORE_ENV.TENANT_ID })).toThrow(/LOCATION_ID is required/);
    expect(loadApplianceConfig(STORE_ENV)).toMatchObject({
      port: 8090,
      host: '0.0.0.0',
      dataDir: './data/appliance',
      tenantId: STORE_ENV.TENANT_ID,
      locationId: STORE_ENV.LOCATION_ID,
      timezone: 'UTC',
      storeName: 'Store',
    });
    expect(loadApplianceConfig({ ...STORE_ENV, APPLIANCE_TIMEZONE: 'America/New_York' }).timezone).toBe(
      'America/New_York',
    );
  });

  it('drains and closes its store cleanly on SIGTERM', async () => {
    const dataDir = tempDir();
    // node itself (see entryArgs), so the signal reaches the appliance and not a wrapper.
    const child = spawn(process.execPath, entryArgs('appliance/main.ts'), {
      cwd: root,
      env: {
        ...process.env,
        ...STORE_ENV,
        APPLIANCE_PORT: '0',
        APPLIANCE_HOST: '127.0.0.1',
        APPLIANCE_DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`appliance exited early with ${code}`)));
      child.stdout.on('data', (chunk: Buffer) => {
        const match = /"port":(\d+)/.exec(chunk.toString());
        if (match) resolve(Number(match[1]));
      });
    });
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    expect(existsSync(join(dataDir, 'appliance.sqlite-wal'))).toBe(true);
    child.kill('SIGTERM');
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    // SQLite checkpoints and removes the WAL only when the last connection closes cleanly.
    expect(existsSync(join(dataDir, 'appliance.sqlite-wal'))).toBe(false);
    const reopened = openApplianceDb(dataDir);
    expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
    reopened.close();
  }, 30_000);
});
