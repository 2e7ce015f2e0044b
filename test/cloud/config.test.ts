import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadCloudConfig } from '../../cloud/config.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

describe('cloud configuration', () => {
  it('has working defaults: SQLite in ./data, port 8080 on loopback, limits on', () => {
    expect(loadCloudConfig({})).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: './data',
      databaseUrl: undefined,
      redisUrl: undefined,
      logLevel: 'info',
      trustProxy: false,
      rateLimit: true,
      anonymousTier: 'professional',
      refreshTtlSeconds: 30 * 86_400,
      keyRotationSeconds: 30 * 86_400,
      hashing: { memoryCost: 19_456, timeCost: 2 },
    });
  });

  it('gives the fleet broker a TLS listener named for loopback unless told otherwise', () => {
    expect(loadCloudConfig({}).fleet).toMatchObject({
      tlsPort: 0,
      tlsHosts: { dns: ['localhost'], ip: ['127.0.0.1'] },
    });
    expect(
      loadCloudConfig({ CLOUD_FLEET_TLS_PORT: '8884', CLOUD_FLEET_TLS_HOSTS: 'fleet.example.com, 10.0.0.5' })
        .fleet,
    ).toMatchObject({ tlsPort: 8884, tlsHosts: { dns: ['fleet.example.com'], ip: ['10.0.0.5'] } });
  });

  it.each([
    ['CLOUD_PORT', '80a'],
    ['CLOUD_PORT', '70000'],
    ['CLOUD_HOST', 'not a host'],
    ['DATABASE_URL', 'mysql://db/x'],
    ['DATABASE_SCHEMA', 'bench; drop'],
    ['DATABASE_SCHEMA', 'bench'],
    ['REDIS_URL', 'http://cache'],
    ['LOG_LEVEL', 'loud'],
    ['CLOUD_TRUST_PROXY', 'yes'],
    ['CLOUD_RATE_LIMIT', 'maybe'],
    ['CLOUD_FLEET_TLS_PORT', '-1'],
    ['CLOUD_FLEET_TLS_HOSTS', 'fleet.example, not a host'],
    ['CLOUD_ANONYMOUS_TIER', 'gold'],
    ['CLOUD_REFRESH_TOKEN_DAYS', '0'],
    ['CLOUD_KEY_ROTATION_DAYS', 'monthly'],
    ['CLOUD_PASSWORD_HASH_KIB', '16'],
    ['CLOUD_PASSWORD_HASH_PASSES', '99'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadCloudConfig({ [name]: value })).toThrow(new RegExp(`^${name} `));
  });

  it('puts a PostgreSQL store in the schema DATABASE_SCHEMA names, and only with PostgreSQL', () => {
    const url = 'postgres://app@db/cloud';
    expect(loadCloudConfig({ DATABASE_URL: url })).toMatchObject({ databaseSchema: undefined });
    expect(loadCloudConfig({ DATABASE_URL: url, DATABASE_SCHEMA: 'bench_1a' })).toMatchObject({
      databaseUrl: url,
      databaseSchema: 'bench_1a',
    });
    expect(() => loadCloudConfig({ DATABASE_URL: url, DATABASE_SCHEMA: 'Bench' })).toThrow(
      /^DATABASE_SCHEMA must be a lower-case identifier/,
    );
    expect(() => loadCloudConfig({ DATABASE_SCHEMA: 'bench' })).toThrow(/^DATABASE_SCHEMA needs a postgres/);
  });

  it('never echoes a database password in its message', () => {
    expect(() => loadCloudConfig({ DATABASE_URL: 'mysql://app:s3cret@db/x' })).toThrow(
      /mysql:\/\/\*\*\*@db\/x/,
    );
  });

  it('stops `npm run cloud` with exit code 2 and the variable named', async () => {
    const run = promisify(execFile)(join(root, 'node_modules/.bin/tsx'), ['cloud/main.ts'], {
      cwd: root,
      env: { ...process.env, CLOUD_PORT: 'eighty' },
    });
    await expect(run).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('CLOUD_PORT must be a whole number'),
    });
  });
});
