/**
 * Builds the appliance's release archive (see docs/releases.md, "Building a release"): its
 * bundles, a package.json, the node_modules they import for this machine's platform, the models,
 * the kiosk UI and release.json, as one .tar.gz that is the same byte for byte from the same
 * commit and options, and a manifest beside it with the archive's size and SHA-256.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { list } from 'tar';
import { isPlainVersion } from '../../shared/devices/update-manifest.ts';
import { bundle, ENTRIES } from '../build.ts';
import { ensureKioskBuilt } from '../kiosk/build-ui.ts';
import {
  type InstalledPackage,
  packageClosure,
  packageKeeps,
  packageOf,
  type Target,
  thisMachine,
} from './packages.ts';
import { type SourceCommit, sourceCommit } from './source.ts';
import { type ArchiveEntry, writeTarGz } from './tar.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The bundles a release runs: the appliance, its detection worker beside it, and the launcher. */
export const RELEASE_BUNDLES = [
  'appliance',
  'vision-detect-worker',
  'launcher',
] as const satisfies ReadonlyArray<keyof typeof ENTRIES>;

/** Where appliance/config.ts looks for them from the bundle: one level above dist/, as in the repository. */
const MODELS_DIR = 'models';
const KIOSK_DIR = 'appliance/kiosk/web/dist';

/** release.json, inside the archive: what the release is and what it runs on. */
export interface ReleaseInfo {
  format: 1;
  version: string;
  commit: string;
  created_at: string;
  platform: string;
  arch: string;
  /** process.versions.modules: native modules load only under a Node with this ABI. */
  node_abi: string;
  node_range: string;
  /** Regular files in the archive, this one included. */
  files: number;
}

/** Beside the archive, for whoever publishes it. */
export interface ReleaseManifest {
  format: 1;
  version: string;
  commit: string;
  dirty: boolean;
  created_at: string;
  platform: string;
  arch: string;
  node_abi: string;
  size: number;
  sha256: string;
}

export interface ReleasePart {
  name: string;
  files: number;
  bytes: number;
}

export interface BuiltRelease {
  archive: string;
  manifestFile: string;
  manifest: ReleaseManifest;
  parts: ReleasePart[];
}

export interface StepReport {
  step: string;
  ms: number;
  detail: string;
}

export interface ReleaseOptions {
  /** Default: package.json's version and `+g` and the commit's first 7 digits. */
  version?: string | undefined;
  outDir: string;
  /** Told as each step starts and when it is done. */
  onStep?: { start(step: string): void; done(report: StepReport): void };
}

interface RootPackage {
  name: string;
  version: string;
  engines?: { node?: string };
}

interface Bundled {
  files: ArchiveEntry[];
  /** The packages the bundles import. */
  imports: Set<string>;
}

/** In memory, named as `npm run build` names them, so their source maps are the same as its. */
async function bundleRelease(): Promise<Bundled> {
  const results = await Promise.all(
    RELEASE_BUNDLES.map((name) => bundle(ENTRIES[name], join(ROOT, 'dist', `${name}.mjs`), { write: false })),
  );
  const files: ArchiveEntry[] = [];
  const imports = new Set<string>();
  for (const result of results) {
    for (const output of result.outputFiles ?? []) {
      const contents = Buffer.from(output.contents);
      files.push({
        path: archivePath(output.path),
        type: 'file',
        mode: 0o644,
        size: contents.length,
        source: contents,
      });
    }
    for (const output of Object.values(result.metafile.outputs))
      for (const imported of output.imports)
        if (imported.external) {
          const name = packageOf(imported.path);
          if (name !== undefined) imports.add(name);
        }
  }
  return { files, imports };
}

const archivePath = (absolute: string) => relative(ROOT, absolute).split(sep).join('/');

/** Executable bits kept as one: 0755 for a program or a library the loader maps, else 0644. */
const normalMode = (mode: number) => (mode & 0o111 ? 0o755 : 0o644);

interface Filter {
  folder?: (path: string) => boolean;
  file?: (path: string) => boolean;
}

/** Every file under `dir` (absolute) that `keep` keeps, as archive entries under `prefix`. */
function filesUnder(dir: string, prefix: string, keep: Filter = {}): ArchiveEntry[] {
  const entries: ArchiveEntry[] = [];
  const walk = (at: string) => {
    for (const item of readdirSync(join(dir, at), { withFileTypes: true })) {
      const path = at === '' ? item.name : `${at}/${item.name}`;
      if (item.isDirectory()) {
        if (keep.folder?.(path) ?? true) walk(path);
      } else if (item.isFile()) {
        if (!(keep.file?.(path) ?? true)) continue;
        const stat = lstatSync(join(dir, path));
        entries.push({
          path: `${prefix}/${path}`,
          type: 'file',
          mode: normalMode(stat.mode),
          size: stat.size,
          source: join(dir, path),
        });
      } else throw new Error(`${join(dir, path)}: only files and folders go into a release`);
    }
  };
  walk('');
  return entries;
}

/** A package's files, without its own node_modules (its nested packages come from the closure). */
function packageFiles(pkg: InstalledPackage, target: Target) {
  return filesUnder(join(ROOT, pkg.dir), pkg.dir, {
    folder: (path) => path !== 'node_modules',
    file: (path) => packageKeeps(pkg, path, target),
  });
}

/** The folders the files sit in, so the archive unpacks with the same modes everywhere. */
function withFolders(files: readonly ArchiveEntry[]): ArchiveEntry[] {
  const folders = new Set<string>();
  for (const file of files)
    for (let slash = file.path.indexOf('/'); slash !== -1; slash = file.path.indexOf('/', slash + 1))
      folders.add(file.path.slice(0, slash));
  const all = [
    ...files,
    ...[...folders].map((path): ArchiveEntry => ({ path, type: 'directory', mode: 0o755, size: 0 })),
  ];
  // A folder's key ends in '/', a prefix of its contents' paths: it sorts before them.
  const key = (entry: ArchiveEntry) => (entry.type === 'directory' ? `${entry.path}/` : entry.path);
  return all.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

const json = (path: string, value: unknown): ArchiveEntry => {
  const contents = Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
  return { path, type: 'file', mode: 0o644, size: contents.length, source: contents };
};

/** Which part of the release a file belongs to, for the size table. */
function partOf(path: string, packages: readonly InstalledPackage[]) {
  if (path.startsWith('node_modules/')) {
    let owner: InstalledPackage | undefined;
    for (const pkg of packages) if (path.startsWith(`${pkg.dir}/`)) owner = pkg;
    return owner ? owner.name : 'node_modules';
  }
  if (path.startsWith(`${KIOSK_DIR}/`)) return 'kiosk UI';
  if (path.startsWith('dist/')) return 'dist (bundles, source maps)';
  if (path.startsWith(`${MODELS_DIR}/`)) return 'models';
  return path;
}

function partsOf(files: readonly ArchiveEntry[], packages: readonly InstalledPackage[]): ReleasePart[] {
  const parts = new Map<string, ReleasePart>();
  for (const file of files) {
    const name = partOf(file.path, packages);
    const part = parts.get(name) ?? { name, files: 0, bytes: 0 };
    part.files += 1;
    part.bytes += file.size;
    parts.set(name, part);
  }
  return [...parts.values()].sort((a, b) => b.bytes - a.bytes || (a.name < b.name ? -1 : 1));
}

export function defaultVersion(root: RootPackage, commit: string) {
  return `${root.version}+g${commit.slice(0, 7)}`;
}

async function timed<T>(
  options: ReleaseOptions,
  step: string,
  run: () => Promise<T> | T,
  detail: (value: T) => string,
) {
  options.onStep?.start(step);
  const started = performance.now();
  const value = await run();
  options.onStep?.done({ step, ms: performance.now() - started, detail: detail(value) });
  return value;
}

/** The archive read back by node-tar, the library that unpacks it on the appliance: the same entries, in order. */
async function checkArchive(file: string, entries: readonly ArchiveEntry[]) {
  const listed: string[] = [];
  await list({ file, onReadEntry: (entry) => listed.push(entry.path) });
  const expected = entries.map((entry) => (entry.type === 'directory' ? `${entry.path}/` : entry.path));
  const first = expected.findIndex((path, i) => listed[i] !== path);
  if (first !== -1 || listed.length !== expected.length)
    throw new Error(
      `the archive reads back differently at entry ${first === -1 ? expected.length : first}: ${listed[first] ?? 'nothing'} for ${expected[first] ?? 'nothing'}`,
    );
  return listed.length;
}

interface Contents {
  source: SourceCommit;
  version: string;
  entries: ArchiveEntry[];
  packages: InstalledPackage[];
  target: Target;
}

async function gather(options: ReleaseOptions): Promise<Contents> {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as RootPackage;
  const source = await timed(
    options,
    'source',
    () => sourceCommit(ROOT),
    (s) => `${s.commit.slice(0, 7)}${s.dirty ? ', with uncommitted changes' : ''}`,
  );
  const version = options.version ?? defaultVersion(root, source.commit);
  if (!isPlainVersion(version)) throw new Error(`"${version}" is not a plain version`);
  const bundled = await timed(
    options,
    'bundles',
    bundleRelease,
    (b) => `${RELEASE_BUNDLES.length} bundles importing ${b.imports.size} packages`,
  );
  await timed(
    options,
    'kiosk UI',
    () => ensureKioskBuilt({ quiet: true }),
    (built) => (built ? 'built' : 'up to date'),
  );
  const target = thisMachine();
  const { packages, packaged } = await timed(
    options,
    'packages',
    () => {
      const packages = packageClosure(ROOT, [...bundled.imports].sort(), target);
      return { packages, packaged: packages.flatMap((pkg) => packageFiles(pkg, target)) };
    },
    (p) => `${p.packages.length} packages for ${target.platform}-${target.arch}, ${p.packaged.length} files`,
  );
  const files = [
    ...bundled.files,
    json('package.json', { name: root.name, version, private: true, type: 'module' }),
    ...filesUnder(join(ROOT, MODELS_DIR), MODELS_DIR),
    ...filesUnder(join(ROOT, KIOSK_DIR), KIOSK_DIR),
    ...packaged,
  ];
  const info: ReleaseInfo = {
    format: 1,
    version,
    commit: source.commit,
    created_at: new Date(source.time * 1000).toISOString(),
    platform: target.platform,
    arch: target.arch,
    node_abi: process.versions.modules,
    node_range: root.engines?.node ?? '*',
    files: files.length + 1,
  };
  return { source, version, entries: withFolders([...files, json('release.json', info)]), packages, target };
}

export async function buildRelease(options: ReleaseOptions): Promise<BuiltRelease> {
  const contents = await gather(options);
  const { source, version, entries, target } = contents;
  mkdirSync(options.outDir, { recursive: true });
  const archive = join(options.outDir, `appliance-${version}.tar.gz`);
  const partial = `${archive}.partial`;
  let written: { size: number; sha256: string };
  try {
    written = await timed(
      options,
      'archive',
      () => writeTarGz(entries, source.time, partial),
      (w) => `${entries.filter((e) => e.type === 'file').length} files, ${(w.size / 1e6).toFixed(1)} MB`,
    );
    await timed(
      options,
      'check',
      () => checkArchive(partial, entries),
      (n) => `${n} entries read back by node-tar`,
    );
    renameSync(partial, archive);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  const manifest: ReleaseManifest = {
    format: 1,
    version,
    commit: source.commit,
    dirty: source.dirty,
    created_at: new Date(source.time * 1000).toISOString(),
    platform: target.platform,
    arch: target.arch,
    node_abi: process.versions.modules,
    size: written.size,
    sha256: written.sha256,
  };
  const manifestFile = join(options.outDir, `appliance-${version}.manifest.json`);
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  const files = entries.filter((entry) => entry.type === 'file');
  return { archive, manifestFile, manifest, parts: partsOf(files, contents.packages) };
}
