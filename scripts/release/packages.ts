/**
 * The node_modules a release carries: the packages its bundles import and what those need to run,
 * found as Node finds them (each package's own node_modules first, then its parents'), for one
 * platform. Not `npm ls --omit=dev`: that is every production dependency of the repository (the
 * cloud's PostgreSQL, S3 and SAML libraries too), where an appliance needs a third of it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { basename, dirname, join, relative, sep } from 'node:path';

export interface Target {
  platform: NodeJS.Platform;
  arch: string;
  /** 'glibc' or 'musl' on Linux, for packages that name the C library they were built against. */
  libc: 'glibc' | 'musl' | undefined;
}

/** This machine, the only platform a release's native modules can be built for here. */
export function thisMachine(): Target {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  const libc =
    process.platform !== 'linux' ? undefined : report?.header?.glibcVersionRuntime ? 'glibc' : 'musl';
  return { platform: process.platform, arch: process.arch, libc };
}

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  os?: string[];
  cpu?: string[];
  libc?: string[];
}

export interface InstalledPackage {
  name: string;
  version: string;
  /** From the repository's root, '/'-separated: node_modules/a, node_modules/a/node_modules/b. */
  dir: string;
}

/** 'fastify', '@fastify/static/x' → the package's name, or undefined for Node's own modules. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || isBuiltin(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Dependencies a package uses only to install itself, which a release never runs: better-sqlite3
 * downloads prebuilt binaries with prebuild-install (ours is compiled and shipped), and
 * onnxruntime-node's install script fetches GPU libraries with adm-zip through global-agent.
 */
const INSTALL_ONLY: Record<string, readonly string[]> = {
  'better-sqlite3': ['prebuild-install'],
  'onnxruntime-node': ['adm-zip', 'global-agent'],
};

const matches = (allowed: readonly string[] | undefined, value: string | undefined) => {
  if (!allowed || value === undefined) return true;
  if (allowed.includes(`!${value}`)) return false;
  const positive = allowed.filter((entry) => !entry.startsWith('!'));
  return positive.length === 0 || positive.includes(value);
};

/** What npm checks before installing a package: its os, cpu and libc fields. */
const runsOn = (manifest: Manifest, target: Target) =>
  matches(manifest.os, target.platform) &&
  matches(manifest.cpu, target.arch) &&
  matches(manifest.libc, target.libc);

const readManifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/**
 * Where Node finds `name` from the package in `from` (absolute): `from`'s node_modules, then each
 * parent's, never looking inside a node_modules/node_modules, up to `root`.
 */
function resolvePackage(root: string, from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (basename(dir) !== 'node_modules') {
      const candidate = join(dir, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return candidate;
    }
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

/**
 * The packages `names` resolve to from `root`, and every package they need: dependencies (which
 * must be installed), optional and peer dependencies when installed, less the install-only ones
 * and those npm would not install on `target`. Sorted by folder.
 */
export function packageClosure(root: string, names: Iterable<string>, target: Target): InstalledPackage[] {
  const found = new Map<string, InstalledPackage>();
  const visit = (name: string, from: string, required: boolean, by: string) => {
    const dir = resolvePackage(root, from, name);
    if (dir === undefined) {
      if (required) throw new Error(`${by} needs ${name}, which is not installed: run npm install`);
      return;
    }
    const key = relative(root, dir).split(sep).join('/');
    if (found.has(key)) return;
    const manifest = readManifest(dir);
    if (!runsOn(manifest, target)) return;
    found.set(key, { name: manifest.name, version: manifest.version, dir: key });
    const skip = new Set(INSTALL_ONLY[manifest.name] ?? []);
    const needs = (deps: Record<string, string> | undefined, must: boolean) => {
      for (const dep of Object.keys(deps ?? {})) if (!skip.has(dep)) visit(dep, dir, must, manifest.name);
    };
    needs(manifest.dependencies, true);
    needs(manifest.optionalDependencies, false);
    needs(manifest.peerDependencies, false);
  };
  for (const name of names) visit(name, root, true, 'the appliance');
  return [...found.values()].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
}

/**
 * Files of a package the target cannot use, by their path inside the package: onnxruntime-node's
 * binaries for other systems (some 240 MB of its 288), what compiling better-sqlite3 left behind
 * (its SQLite sources and object files: it loads build/Release/better_sqlite3.node), and the test
 * coverage report and docs fluent-ffmpeg publishes (12 MB beside 150 kB of code).
 */
const UNUSED: Record<string, (path: string, target: Target) => boolean> = {
  'onnxruntime-node': (path, target) => {
    const binary = /^bin\/napi-v\d+\/([^/]+)(?:\/([^/]+))?/.exec(path);
    return (
      binary !== null &&
      (binary[1] !== target.platform || (binary[2] !== undefined && binary[2] !== target.arch))
    );
  },
  'better-sqlite3': (path) =>
    !(
      path === 'package.json' ||
      path === 'LICENSE' ||
      path.startsWith('lib/') ||
      path === 'build/Release/better_sqlite3.node'
    ),
  'fluent-ffmpeg': (path) => path.startsWith('coverage/') || path.startsWith('doc/'),
};

/** Whether a file (its path inside the package) goes into the release. */
export function packageKeeps(pkg: Pick<InstalledPackage, 'name'>, path: string, target: Target): boolean {
  return !(UNUSED[pkg.name]?.(path, target) ?? false);
}
