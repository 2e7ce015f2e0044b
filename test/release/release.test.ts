import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { extract, list, type ReadEntry } from 'tar';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApplianceServices } from '../../appliance/app.ts';
import { loadApplianceConfig } from '../../appliance/config.ts';
import { openApplianceDb } from '../../appliance/db/index.ts';
import { ensureKioskBuilt } from '../../scripts/kiosk/build-ui.ts';
import type { ReleaseInfo, ReleaseManifest } from '../../scripts/release/assemble.ts';
import { parseReleaseArgs } from '../../scripts/release.ts';
import { systemClock } from '../../shared/clock.ts';
import { createSecretHasher } from '../../shared/identity/secrets.ts';
import { newId } from '../../shared/ids.ts';
import { exited } from '../support/processes.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  engines: { node: string };
};

interface Built {
  archive: string;
  manifest: ReleaseManifest;
  output: string;
}

/** `npm run release -- --out <out>`, as a person runs it (tsx, from the repository). */
async function release(out: string, args: string[] = []): Promise<Built> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'scripts/release.ts', '--out', out, ...args],
    {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const manifestFile = readdirSync(out).find((name) => name.endsWith('.manifest.json'))!;
  const manifest = JSON.parse(readFileSync(join(out, manifestFile), 'utf8')) as ReleaseManifest;
  return { archive: join(out, `appliance-${manifest.version}.tar.gz`), manifest, output: stdout };
}

/** Every entry's header, and the bytes of the small files asked for. */
async function readArchive(file: string, wanted: readonly string[]) {
  const entries: ReadEntry[] = [];
  const contents = new Map<string, string>();
  await list({
    file,
    onReadEntry: (entry) => {
      entries.push(entry);
      if (!wanted.includes(entry.path)) return;
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => contents.set(entry.path, Buffer.concat(chunks).toString('utf8')));
    },
  });
  return { entries, json: <T>(path: string) => JSON.parse(contents.get(path)!) as T };
}

const ENV = {
  TENANT_ID: '01900000-0000-7000-8000-00000000000a',
  LOCATION_ID: '01900000-0000-7000-8000-00000000000b',
  APPLIANCE_PORT: '0',
  APPLIANCE_HOST: '127.0.0.1',
  APPLIANCE_TIMEZONE: 'America/New_York',
  LOG_LEVEL: 'info',
};

/** Staff and a menu item, as sync would bring them, before the installed appliance first starts. */
async function seed(dataDir: string) {
  const db = openApplianceDb(dataDir);
  const services = createApplianceServices(loadApplianceConfig({ ...ENV, APPLIANCE_DATA_DIR: dataDir }), {
    db,
    clock: systemClock,
    newId,
    hasher: createSecretHasher({ memoryCost: 1024, timeCost: 1 }),
  });
  await services.auth.upsertStaff({
    id: newId(),
    email: 'ann@store.test',
    username: 'ann',
    displayName: 'Ann',
    roles: ['staff'],
    pin: '135790',
    version: 1,
  });
  const category = services.menu.createCategory({ name: 'Mains' });
  const item = services.menu.createItem({ category_id: category.id, name: 'Burger', price_minor: 899 });
  db.close();
  return item.id;
}

/** The launcher's stdout (its own lines and the appliance's) until the appliance says where it listens. */
function listeningPort(child: ChildProcess) {
  return new Promise<number>((resolve, reject) => {
    let pending = '';
    child.once('exit', (code) => reject(new Error(`the launcher exited with ${code} before listening`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const port = /"msg":"appliance listening"/.test(line) && /"port":(\d+)/.exec(line);
        if (port) resolve(Number(port[1]));
      }
    });
  });
}

describe('npm run release', () => {
  let work = '';
  let first: Built;
  let second: Built;
  const running: ChildProcess[] = [];

  // Built once for the whole file, twice over: two processes at once, after the kiosk UI is built
  // (else both would build it into the same folder).
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'release-'));
    await ensureKioskBuilt({ quiet: true });
    [first, second] = await Promise.all([release(join(work, 'a')), release(join(work, 'b'))]);
  }, 600_000);
  afterEach(async () => {
    for (const child of running.splice(0)) {
      child.kill('SIGKILL');
      await exited(child);
    }
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('builds the same archive from the same checkout, with a manifest of its size and SHA-256', () => {
    const bytes = readFileSync(first.archive);
    expect(readFileSync(second.archive).equals(bytes)).toBe(true);
    expect(second.manifest).toEqual(first.manifest);
    const { manifest } = first;
    expect(manifest).toEqual({
      format: 1,
      version: `${rootPackage.version}+g${manifest.commit.slice(0, 7)}`,
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      dirty: expect.any(Boolean),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
      platform: process.platform,
      arch: process.arch,
      node_abi: process.versions.modules,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    // gzip's own header: no time in it (bytes 4-7), so the same bytes make the same file.
    expect(bytes.subarray(4, 8).readUInt32LE()).toBe(0);
    expect(first.output).toMatch(/^ {2}archive +\d+\.\d s {2}\d+ files/m);
    expect(first.output.trim().split('\n').at(-1)).toContain(`${first.archive}  `);
    expect(first.output.trim().split('\n').at(-1)).toContain(`sha256 ${manifest.sha256}`);
  });

  it('holds the bundles, package.json, models, kiosk UI, release.json and node_modules for this platform only', async () => {
    const { entries, json } = await readArchive(first.archive, ['release.json', 'package.json']);
    const paths = entries.map((entry) => entry.path);
    expect(paths).toEqual([...paths].sort());
    for (const path of [
      'release.json',
      'package.json',
      'dist/appliance.mjs',
      'dist/appliance.mjs.map',
      'dist/vision-detect-worker.mjs',
      'dist/launcher.mjs',
      'models/vehicles.onnx',
      'models/food-items.json',
      'appliance/kiosk/web/dist/index.html',
      'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
      'node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node',
      'node_modules/fastify/package.json',
    ])
      expect(paths, path).toContain(path);
    const unwanted = paths.filter((path) =>
      /onnxruntime-node\/bin\/napi-v\d+\/(darwin|win32|linux\/arm64)|@ffmpeg-installer\/(darwin|win32|linux-(arm|ia32))|better-sqlite3\/(deps|src)\/|^node_modules\/(vitest|typescript|electron|esbuild|pg|@aws-sdk|prebuild-install)\/|\/\.bin\//.test(
        path,
      ),
    );
    expect(unwanted).toEqual([]);

    const files = entries.filter((entry) => entry.type === 'File');
    const createdAt = new Date(first.manifest.created_at);
    for (const entry of entries) {
      expect(entry.mtime?.getTime(), entry.path).toBe(createdAt.getTime());
      expect([entry.uid, entry.gid, entry.uname ?? '', entry.gname ?? ''], entry.path).toEqual([
        0,
        0,
        '',
        '',
      ]);
      expect([0o644, 0o755], entry.path).toContain(entry.mode);
      if (entry.type === 'Directory') expect(entry.mode, entry.path).toBe(0o755);
    }
    expect(
      entries.find((entry) => entry.path === 'node_modules/@ffmpeg-installer/linux-x64/ffmpeg')?.mode,
    ).toBe(0o755);
    expect(json<ReleaseInfo>('release.json')).toEqual({
      format: 1,
      version: first.manifest.version,
      commit: first.manifest.commit,
      created_at: first.manifest.created_at,
      platform: process.platform,
      arch: process.arch,
      node_abi: process.versions.modules,
      node_range: rootPackage.engines.node,
      files: files.length,
    });
    expect(json('package.json')).toEqual({
      name: rootPackage.name,
      version: first.manifest.version,
      private: true,
      type: 'module',
    });
  });

  it('runs unpacked outside the repository as production runs it: launcher, appliance, native modules', async () => {
    const install = join(work, 'install');
    const data = join(work, 'data');
    expect(resolve(install).startsWith(resolve(ROOT))).toBe(false);
    mkdirSync(install);
    mkdirSync(data);
    await extract({ file: first.archive, cwd: install });
    const burger = await seed(data);

    // Only what a service's environment holds: nothing of this test run's Node settings.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...ENV, APPLIANCE_DATA_DIR: data };
    const launcher = spawn(process.execPath, ['dist/launcher.mjs'], {
      cwd: install,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    running.push(launcher);
    const base = `http://127.0.0.1:${await listeningPort(launcher)}`;
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const kiosk = await fetch(`${base}/kiosk/`);
    expect(kiosk.status).toBe(200);
    expect(await kiosk.text()).toMatch(/<html/i);

    const login = await fetch(`${base}/v1/auth/login/pin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: 'ann', pin: '135790' }),
    });
    expect(login.status).toBe(200);
    const token = ((await login.json()) as { status: { access_token: string } }).status.access_token;
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const order = await fetch(`${base}/v1/commerce/orders`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ order_type: 'takeout', items: [{ menu_item_id: burger, quantity: 2 }] }),
    });
    expect(order.status).toBe(201);
    const { data: taken } = (await order.json()) as { data: { id: string } };
    const read = await fetch(`${base}/v1/commerce/orders/${taken.id}`, { headers });
    expect(read.status).toBe(200);

    launcher.kill('SIGTERM');
    await exited(launcher);
    expect(launcher.exitCode).toBe(0);

    // The camera pipeline's native parts, loaded from the release's node_modules alone.
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import ort from 'onnxruntime-node';
         import sharp from 'sharp';
         import ffmpeg from '@ffmpeg-installer/ffmpeg';
         import { execFileSync } from 'node:child_process';
         const session = await ort.InferenceSession.create('models/vehicles.onnx');
         const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } }).png().toBuffer();
         const version = execFileSync(ffmpeg.path, ['-version'], { encoding: 'utf8' }).split('\\n')[0];
         console.log(JSON.stringify({ inputs: session.inputNames.length, png: png.length > 0, ffmpeg: ffmpeg.path, version }));`,
      ],
      { cwd: install, env },
    );
    const natives = JSON.parse(stdout) as { inputs: number; png: boolean; ffmpeg: string; version: string };
    expect(natives).toMatchObject({ png: true, version: expect.stringMatching(/^ffmpeg version/) });
    expect(natives.inputs).toBeGreaterThan(0);
    expect(natives.ffmpeg.startsWith(install)).toBe(true);
  }, 120_000);
});

describe('npm run release options', () => {
  it('takes a plain version and an output folder', () => {
    expect(parseReleaseArgs(['--version', '1.2.3-rc.1+store', '--out', 'out'], '/tmp/x')).toEqual({
      version: '1.2.3-rc.1+store',
      outDir: '/tmp/x/out',
    });
    expect(parseReleaseArgs([]).outDir).toBe(join(ROOT, 'release'));
  });

  it('refuses what it does not know, a version that is not plain, and an option without its value', () => {
    expect(() => parseReleaseArgs(['--versoin', '1'])).toThrow(/Unknown option '--versoin'/);
    expect(() => parseReleaseArgs(['--version', '../1'])).toThrow(/not a plain version/);
    expect(() => parseReleaseArgs(['--version'])).toThrow(/argument missing/);
    expect(() => parseReleaseArgs(['stray'])).toThrow(/positional/);
  });

  it('exits 2 on bad options, before building anything', async () => {
    const out = mkdtempSync(join(tmpdir(), 'release-options-'));
    try {
      const failed = await run(
        process.execPath,
        ['--import', 'tsx', 'scripts/release.ts', '--version', 'a b', '--out', out],
        {
          cwd: ROOT,
        },
      ).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stderr).toMatch(/^release: --version "a b" is not a plain version/);
      expect(readdirSync(out)).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
