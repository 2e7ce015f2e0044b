import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

interface LockedPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  engines?: { node?: string } | string[];
  hasInstallScript?: boolean;
}

interface Manifest {
  engines: { node: string };
  allowScripts: Record<string, boolean>;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};
const installed = Object.entries(lock.packages).filter(([path]) => path !== '');

/** The appliance ships for these, and CI runs on the first: what never installs there is not checked. */
const PLATFORMS = [
  { os: 'linux', cpu: 'x64' },
  { os: 'linux', cpu: 'arm64' },
];

/** npm's reading of `os` and `cpu`: names a package installs on, or `!names` it does not. */
function admits(list: string[] | undefined, value: string) {
  if (list === undefined) return true;
  if (list.includes(`!${value}`)) return false;
  const named = list.filter((entry) => !entry.startsWith('!'));
  return named.length === 0 || named.includes(value);
}

const installsOnOurPlatforms = (pkg: LockedPackage) =>
  PLATFORMS.some(({ os, cpu }) => admits(pkg.os, os) && admits(pkg.cpu, cpu));

const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

/**
 * The one dev-only tool that needs a newer Node than ours: electron-builder rebuilds native modules
 * for Electron with @electron/rebuild 4 (Node 22.12), and every 3.x fetches node-gyp from GitHub,
 * not the registry. Our packaging never runs it (appliance/kiosk/packaging/before-build.cjs).
 */
const NEEDS_NEWER_NODE = new Set([
  'node_modules/@electron/rebuild',
  'node_modules/@electron/rebuild/node_modules/node-abi',
]);

/** The lowest version of each line the stated range admits: `^20.19.0 || ^22.13.0 || >=24` gives three. */
function floorsOf(range: string) {
  return new semver.Range(range).set.map((comparators) => {
    const floor = semver.minVersion(new semver.Range(comparators.map((c) => c.value).join(' ')));
    if (!floor) throw new Error(`${range} admits no version`);
    return floor.version;
  });
}

function nodeRange(pkg: LockedPackage) {
  return Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
}

describe('package.json engines.node', () => {
  const floors = floorsOf(manifest.engines.node);

  it('states lines that begin at 20.19, the Node CI runs on', () => {
    expect(floors[0]).toBe('20.19.0');
    expect(semver.satisfies(process.version, manifest.engines.node)).toBe(true);
  });

  it('is accepted by every installed package at the first version of each line', () => {
    const excluding = installed
      .filter(([path, pkg]) => !NEEDS_NEWER_NODE.has(path) && installsOnOurPlatforms(pkg))
      .flatMap(([path, pkg]) => {
        const range = nodeRange(pkg);
        if (range === undefined) return [];
        const refused = floors.filter((floor) => !semver.satisfies(floor, range));
        return refused.length > 0
          ? [`${nameOf(path)}@${pkg.version} wants node ${range}, not ${refused.join(', ')}`]
          : [];
      });
    expect(excluding).toEqual([]);
  });

  it('makes an exception only for dev packages that still need one', () => {
    for (const path of NEEDS_NEWER_NODE) {
      const pkg = lock.packages[path];
      expect(pkg, path).toBeDefined();
      expect(pkg?.dev, path).toBe(true);
      expect(semver.satisfies(floors[0] ?? '', nodeRange(pkg ?? {}) ?? '*'), path).toBe(false);
    }
  });
});

describe('package.json allowScripts', () => {
  it('decides for every installed package with an install script, so npm has none to warn about', () => {
    const undecided = installed
      .filter(([, pkg]) => pkg.hasInstallScript)
      .map(([path]) => nameOf(path))
      .filter((name) => manifest.allowScripts[name] === undefined);
    expect(undecided).toEqual([]);
  });

  it('denies the scripts that download beyond the npm registry', () => {
    // electron's fetches its binary from GitHub; onnxruntime-node's the CUDA providers from NuGet.
    expect(manifest.allowScripts).toMatchObject({ electron: false, 'onnxruntime-node': false });
  });
});
