import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../cloud/app.ts';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { openStore } from '../../../cloud/db/index.ts';
import { totpCode } from '../../../cloud/identity/totp.ts';
import { createCloudServices } from '../../../cloud/services.ts';
import { systemClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { entryArgs } from '../../support/entries.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const LIGHT_HASHING = { CLOUD_PASSWORD_HASH_KIB: '1024', CLOUD_PASSWORD_HASH_PASSES: '1' };

interface CliResult {
  code: number;
  json: unknown;
  stderr: string;
}

/**
 * Runs the real CLI on a data folder (`line` split at spaces) and parses what it printed; anything
 * but JSON fails the test.
 */
function ctl(dataDir: string, line = ''): Promise<CliResult> {
  const args = line.split(' ').filter((arg) => arg !== '');
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ...LIGHT_HASHING };
  delete env.DATABASE_URL;
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [...entryArgs('cloud/ctl/main.ts'), ...args],
      { cwd: root, env },
      (error, stdout, stderr) => {
        const code = error ? Number(error.code) : 0;
        try {
          done({ code, json: JSON.parse(stdout), stderr });
        } catch {
          fail(new Error(`ctl ${args.join(' ')} printed no JSON (exit ${code}): ${stdout}${stderr}`));
        }
      },
    );
  });
}

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function freshDataDir() {
  const dir = mkdtempSync(join(tmpdir(), 'cloud-ctl-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The cloud's services in this process, on the same data folder the CLI uses. */
async function openCloud(dataDir: string) {
  const config = loadCloudConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...LIGHT_HASHING });
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  cleanups.push(() => store.close());
  const deps = { store, clock: systemClock, newId };
  return { config, deps, services: createCloudServices(config, deps) };
}

const refusal = (code: string) => ({ code: 1, json: { error: { code } } });
const usageError = (flag: string) => ({
  code: 2,
  json: { error: { code: 'USAGE_ERROR', message: expect.stringContaining(flag) } },
});

// Each test starts a few CLI processes of about a second each; a busy machine needs the margin.
describe('operator CLI', { timeout: 60_000 }, () => {
  it('prints its help as JSON: every command, or one command with its flags', async () => {
    const dir = freshDataDir();
    const [all, one] = await Promise.all([ctl(dir), ctl(dir, 'user create --help')]);
    expect(all).toMatchObject({ code: 0, stderr: '' });
    const commands = (all.json as { commands: Array<{ command: string }> }).commands.map((c) => c.command);
    expect(commands).toEqual([
      'tenant create',
      'tenant list',
      'tenant set-tier',
      'user create',
      'user list',
      'user set-password',
      'user set-pin',
      'user mfa-reset',
      'keys rotate',
      'keys list',
    ]);
    expect(one).toMatchObject({
      code: 0,
      json: {
        command: 'user create',
        usage: expect.stringContaining('--tenant <slug>'),
        flags: expect.arrayContaining([
          { flag: '--pin', value: 'NNNNNN', required: false, description: expect.any(String) },
        ]),
      },
    });
    expect(existsSync(join(dir, 'cloud.sqlite'))).toBe(false);
  });

  it('creates tenants, refuses a taken slug, changes a tier and lists every page', async () => {
    const dir = freshDataDir();
    const created = await ctl(dir, 'tenant create --slug acme --name Acme --tier professional');
    expect(created).toMatchObject({ code: 0, json: { slug: 'acme', name: 'Acme', tier: 'professional' } });
    expect(await ctl(dir, 'tenant create --slug acme --name Other')).toMatchObject(
      refusal('TENANT_SLUG_TAKEN'),
    );
    expect(await ctl(dir, 'tenant set-tier --slug acme --tier enterprise')).toMatchObject({
      code: 0,
      json: { slug: 'acme', tier: 'enterprise' },
    });

    // The CLI pages by 100: a 101st tenant is only listed if it follows the cursor.
    const { services } = await openCloud(dir);
    for (let i = 0; i < 100; i++) await services.tenancy.createTenant({ slug: `t-${i}`, name: `T ${i}` });
    const listed = await ctl(dir, 'tenant list');
    expect(listed.code).toBe(0);
    const tenants = listed.json as Array<{ slug: string; tier: string }>;
    expect(tenants).toHaveLength(101);
    expect(new Set(tenants.map((t) => t.slug)).size).toBe(101);
    expect(tenants[0]).toMatchObject({ slug: 'acme', tier: 'enterprise' });
  });

  it('refuses bad flags with exit 2 before opening the store, naming the flag', async () => {
    const dir = freshDataDir();
    const user = 'user create --tenant acme --email ann@example.com --roles staff';
    const results = await Promise.all([
      ctl(dir, `${user} --pin 12345`),
      ctl(dir, 'user create --tenant acme --email not-an-email --roles staff'),
      ctl(dir, 'user create --tenant acme --email ann@example.com --roles staff,chef'),
      ctl(dir, 'tenant create --slug acme --name Acme --tier gold'),
      ctl(dir, `${user} --colour blue`),
      ctl(dir, 'tenant create --slug acme'),
    ]);
    const flags = ['--pin', '--email', '--roles', '--tier', '--colour', '--name'];
    results.forEach((result, i) => {
      expect(result).toMatchObject(usageError(flags[i]!));
      expect((result.json as { error: { details: Array<{ field: string }> } }).error.details).toContainEqual(
        expect.objectContaining({ field: flags[i] }),
      );
    });
    expect(existsSync(join(dir, 'cloud.sqlite'))).toBe(false);

    expect(await ctl(dir, user)).toMatchObject(refusal('TENANT_NOT_FOUND'));
  });

  it('bootstraps a fresh install: the user it creates logs in to the cloud, whose store stays shared', async () => {
    const dir = freshDataDir();
    await ctl(dir, 'tenant create --slug acme --name Acme');
    const created = await ctl(
      dir,
      'user create --tenant acme --email Ann@Example.com --password first-secret --pin 123456 ' +
        '--roles tenant_admin,staff --first-name Ann --last-name Lee',
    );
    const member = {
      email: 'ann@example.com',
      display_name: 'Ann Lee',
      roles: ['tenant_admin', 'staff'],
      has_password: true,
      has_pin: true,
    };
    expect(created).toMatchObject({ code: 0, json: member });
    expect(JSON.stringify(created.json)).not.toMatch(/hash|\$argon2/);
    expect(await ctl(dir, 'user list --tenant acme')).toMatchObject({ code: 0, json: [member] });

    const { config, deps, services } = await openCloud(dir);
    const app = await buildApp(config, { ...deps, services });
    cleanups.push(() => app.close());
    const login = (password: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: 'ann@example.com', password },
      });
    expect((await login('first-secret')).json().status).toMatchObject({ type: 'success' });

    // With the cloud running on the same store, the operator changes the password.
    const changed = await ctl(
      dir,
      'user set-password --tenant acme --email ann@example.com --password second-secret',
    );
    expect(changed).toMatchObject({ code: 0, json: { email: 'ann@example.com', has_password: true } });
    expect((await login('second-secret')).json().status).toMatchObject({ type: 'success' });
    expect((await login('first-secret')).statusCode).toBe(401);
  });

  it('resets the MFA of a user who lost their authenticator', async () => {
    const dir = freshDataDir();
    const { services } = await openCloud(dir);
    const tenant = await services.tenancy.createTenant({ slug: 'acme', name: 'Acme' });
    const user = await services.tenancy.addUser(tenant.id, { email: 'ann@example.com', roles: ['staff'] });
    const factor = await services.identity.mfa.enroll(user.id, user.email, 'phone');
    await services.identity.mfa.activate(user.id, tenant.id, factor.id, totpCode(factor.secret, new Date()));
    expect(await services.identity.mfa.list(user.id)).toHaveLength(1);

    expect(await ctl(dir, 'user mfa-reset --email ann@example.com')).toEqual({
      code: 0,
      json: { user_id: user.id, email: 'ann@example.com', factors_removed: true },
      stderr: '',
    });
    expect(await services.identity.mfa.list(user.id)).toEqual([]);
  });

  it('rotates the signing key and keeps publishing the retired one', async () => {
    const dir = freshDataDir();
    const { services } = await openCloud(dir);
    const first = await services.identity.keys.rotate();

    const rotated = await ctl(dir, 'keys rotate');
    expect(rotated.code).toBe(0);
    const { kid } = rotated.json as { kid: string };
    expect(kid).not.toBe(first);

    const listed = await ctl(dir, 'keys list');
    const kids = (listed.json as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);
    expect(kids.sort()).toEqual([first, kid].sort());
  });
});
