import { createHash, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { type SignedUpdate, signManifest } from '../../../shared/devices/update-manifest.ts';

export interface TarEntry {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'FIFO';
  body?: string;
  linkpath?: string;
  mode?: number;
}

/** A gzipped tar of exactly these entries, written header by header: bad ones included, as an attacker would. */
export function tarOf(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    const header = Buffer.alloc(512);
    new Header({
      path: entry.path,
      type: entry.type ?? 'File',
      mode: entry.mode ?? (entry.type === 'Directory' ? 0o755 : 0o644),
      size: body.length,
      linkpath: entry.linkpath ?? '',
      uid: 0,
      gid: 0,
      mtime: new Date(0),
    }).encode(header, 0);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** How the release's appliance.mjs answers `--health-check`. */
export type FixtureHealth = 'healthy' | 'unhealthy' | 'hang';

/**
 * A release's own appliance.mjs for the updater's tests: it answers `--health-check` as told, and
 * writes what it was started with (arguments, folder, the environment's switches and the data
 * directory's files) to FIXTURE_RECORD when that is set. The real one is exercised in
 * health-check.test.ts; here it is the updater's side that is under test.
 */
const fixtureAppliance = (version: string, health: FixtureHealth) => `
import { readdirSync, writeFileSync } from 'node:fs';
const env = process.env;
if (env.FIXTURE_RECORD) {
  const keys = ['APPLIANCE_DATA_DIR', 'APPLIANCE_PORT', 'APPLIANCE_HOST', 'APPLIANCE_MQTT_PORT', 'APPLIANCE_MQTT_TLS_PORT',
    'APPLIANCE_FLEET_URL', 'APPLIANCE_VISION', 'APPLIANCE_ENROLLMENT_TOKEN', 'TENANT_ID'];
  writeFileSync(env.FIXTURE_RECORD, JSON.stringify({
    argv: process.argv.slice(2), execArgv: process.execArgv, cwd: process.cwd(),
    env: Object.fromEntries(keys.map((key) => [key, env[key] ?? null])),
    data: readdirSync(env.APPLIANCE_DATA_DIR).sort(),
  }));
}
const health = ${JSON.stringify(health)};
if (health === 'hang') setInterval(() => {}, 1000);
else {
  const ok = health === 'healthy';
  const checks = [
    { name: 'health', ok: true, detail: 'GET /health answered 200' },
    { name: 'migrations', ok, detail: ok ? 'the database is at migration 20' : "the database is at migration 99, newer than this version's 20" },
  ];
  process.stdout.write('{"level":30,"msg":"a log line before the report"}\\n');
  process.stdout.write(JSON.stringify({ healthy: ok, version: ${JSON.stringify(version)}, checks }) + '\\n');
  process.exitCode = ok ? 0 : 1;
}
`;

/** A release archive laid out as `npm run release` lays it out, small. */
export function releaseArchive(
  version: string,
  options: { health?: FixtureHealth; releaseVersion?: string; padding?: number } = {},
): Buffer {
  return tarOf([
    { path: 'release.json', body: JSON.stringify({ format: 1, version: options.releaseVersion ?? version }) },
    {
      path: 'package.json',
      body: JSON.stringify({ name: 'edge-appliance-runtime', version, type: 'module' }),
    },
    { path: 'dist/', type: 'Directory' },
    { path: 'dist/appliance.mjs', body: fixtureAppliance(version, options.health ?? 'healthy') },
    { path: 'node_modules/.bin/', type: 'Directory' },
    { path: 'node_modules/tool/cli.js', body: '#!/usr/bin/env node\n' },
    { path: 'node_modules/.bin/tool', type: 'SymbolicLink', linkpath: '../tool/cli.js' },
    // Noise that does not compress, so a download takes more than one chunk.
    { path: 'models/weights.bin', body: randomText(options.padding ?? 200_000) },
  ]);
}

function randomText(length: number) {
  let text = '';
  let seed = 7;
  while (text.length < length) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    text += seed.toString(36);
  }
  return text.slice(0, length);
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export function manifestFor(
  version: string,
  url: string,
  bytes: Buffer,
  key: KeyObject,
  chain = {},
): SignedUpdate {
  return signManifest({ version, url, size: bytes.length, sha256: sha256(bytes) }, key, chain);
}

/** How the archive server answers a Range request. */
export type RangeMode = 'honour' | 'ignore' | 'refuse' | 'wrong';

/**
 * Serves archives by path, with Range support as a CDN has it (or not, as a test asks), and as
 * slowly as a test asks: `bytesPerTick` every 10 ms, so a test can stop a download half way.
 */
export async function startArchiveServer() {
  const archives = new Map<string, Buffer>();
  const requests: Array<{ url: string; range: string | undefined }> = [];
  const state = { range: 'honour' as RangeMode, bytesPerTick: 0, stallAfter: Number.POSITIVE_INFINITY };
  const server: Server = createServer((req: IncomingMessage, res) => {
    requests.push({ url: req.url ?? '', range: req.headers.range });
    const body = archives.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    const asked = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    let start = 0;
    if (asked && state.range === 'refuse')
      return void res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
    if (asked && state.range !== 'ignore') {
      start = Number(asked[1]);
      const shown = state.range === 'wrong' ? 0 : start;
      res.writeHead(206, {
        'content-length': body.length - start,
        'content-range': `bytes ${shown}-${body.length - 1}/${body.length}`,
      });
    } else res.writeHead(200, { 'content-length': body.length });
    send(res, body.subarray(start));
  });
  function send(res: import('node:http').ServerResponse, bytes: Buffer) {
    if (state.bytesPerTick === 0 && state.stallAfter === Number.POSITIVE_INFINITY) return void res.end(bytes);
    let offset = 0;
    const step = state.bytesPerTick || 64 * 1024;
    const next = () => {
      if (res.destroyed) return;
      if (offset >= bytes.length) return void res.end();
      if (offset >= state.stallAfter) return; // and then nothing: a stalled mirror
      res.write(bytes.subarray(offset, offset + step));
      offset += step;
      setTimeout(next, 10);
    };
    next();
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    state,
    requests,
    /** Serves `bytes` at /<name>; answers its URL. */
    publish(name: string, bytes: Buffer) {
      archives.set(`/${name}`, bytes);
      return `${base}/${name}`;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type ArchiveServer = Awaited<ReturnType<typeof startArchiveServer>>;
