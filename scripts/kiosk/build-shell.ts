/**
 * The kiosk shell for electron-builder (see electron-builder.yml and the README's "Kiosk shell and
 * packaging"):
 *
 *   tsx scripts/kiosk/build-shell.ts            main.cjs, preload.cjs and package.json in dist/kiosk/app
 *   tsx scripts/kiosk/build-shell.ts --runtime  also the runtime's package.json and production
 *                                               node_modules in dist/kiosk/runtime, after checking
 *                                               that what the packages carry is built (npm run
 *                                               build, the kiosk's web UI)
 *
 * The shell is its own small app (electron-builder's two-package.json layout): its main process and
 * preload are bundled by esbuild into CommonJS for Electron, with nothing left in node_modules but
 * Electron itself, so the packages carry none of the runtime's dependencies twice and nothing is
 * rebuilt for Electron. The appliance runtime travels beside it as resources and runs on the
 * system's Node.js; its native modules (better-sqlite3 is built per Node major) are this machine's,
 * copied as installed, so packages are built on the Node major and the architecture they ship for.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** electron-builder's `directories.app`. */
export const SHELL_APP_DIR = 'dist/kiosk/app';
export const SHELL_ENTRIES = {
  main: 'appliance/kiosk/electron/main.ts',
  preload: 'appliance/kiosk/electron/preload.ts',
} as const;
/** What the shell app holds (electron-builder.yml's `files`). */
export const SHELL_FILES = ['main.cjs', 'preload.cjs', 'package.json'] as const;
/**
 * The runtime's package.json (its bundle reads its version there) and production dependencies,
 * staged for electron-builder's extraResources. Staged rather than taken from the repository:
 * electron-builder keeps every extraResources source out of the app, so a root `package.json`
 * there would take the shell's own package.json out of app.asar.
 */
export const RUNTIME_DIR = 'dist/kiosk/runtime';
/** The Node major the runtime's native modules are built for: the deb's `nodejs` dependency. */
export const RUNTIME_NODE_MAJOR = 20;
/** What the packages carry besides the shell, built by other commands. */
export const PACKAGED_INPUTS = [
  'dist/appliance.mjs',
  'dist/vision-detect-worker.mjs',
  'models',
  'appliance/kiosk/web/dist',
] as const;

/** Bundles main and preload into `outdir` as `.cjs`; answers esbuild's metafile (inputs, imports). */
export async function compileShell(outdir: string, options: { write?: boolean } = {}) {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: SHELL_ENTRIES,
    outdir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    // Electron 41's Node.
    target: 'node22',
    external: ['electron'],
    metafile: true,
    write: options.write ?? true,
    logLevel: 'silent',
  });
  return {
    metafile: result.metafile as Metafile,
    warnings: result.warnings,
    outputFiles: result.outputFiles,
  };
}

interface RootPackage {
  version: string;
  description?: string;
}

/** The shell app's package.json: electron-builder takes the name, version and entry from it. */
export function shellPackageJson(root: RootPackage) {
  return {
    name: 'edge-kiosk',
    version: root.version,
    description: root.description ?? 'The store appliance kiosk',
    main: 'main.cjs',
    private: true,
  };
}

/** Binaries of onnxruntime-node for other systems: some 250 MB the packages need not carry. */
export function isForeignBinary(path: string, arch: string): boolean {
  const match = /(?:^|\/)onnxruntime-node\/bin\/napi-v\d+\/([^/]+)(?:\/([^/]+))?/.exec(path);
  if (match === null) return false;
  return match[1] !== 'linux' || (match[2] !== undefined && match[2] !== arch);
}

/** From `npm ls --parseable` paths: the package folders to copy, none inside another. */
export function foldersToCopy(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  const kept: string[] = [];
  for (const path of sorted) {
    const parent = kept.at(-1);
    if (parent !== undefined && path.startsWith(`${parent}/`)) continue;
    kept.push(path);
  }
  return kept;
}

export function missingInputs(exists: (path: string) => boolean): string[] {
  return PACKAGED_INPUTS.filter((path) => !exists(path));
}

function productionPackagePaths(): string[] {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 64 * 1024 * 1024,
  });
  return out
    .split('\n')
    .filter((line) => line.includes(`${sep}node_modules${sep}`))
    .map((line) => relative(join(ROOT, 'node_modules'), line).split(sep).join('/'));
}

function stageRuntimeModules(arch: string) {
  const target = join(ROOT, RUNTIME_DIR, 'node_modules');
  const folders = foldersToCopy(productionPackagePaths());
  for (const folder of folders) {
    cpSync(join(ROOT, 'node_modules', folder), join(target, folder), {
      recursive: true,
      filter: (source) => !isForeignBinary(relative(ROOT, source).split(sep).join('/'), arch),
    });
  }
  return folders.length;
}

async function buildShell() {
  const outdir = join(ROOT, SHELL_APP_DIR);
  rmSync(outdir, { recursive: true, force: true });
  const { warnings } = await compileShell(outdir);
  for (const warning of warnings) console.warn(`esbuild: ${warning.text}`);
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as RootPackage;
  writeFileSync(join(outdir, 'package.json'), `${JSON.stringify(shellPackageJson(root), null, 2)}\n`);
  console.log(`built ${SHELL_FILES.map((file) => `${SHELL_APP_DIR}/${file}`).join(', ')}`);
}

function stageRuntime() {
  const missing = missingInputs((path) => existsSync(join(ROOT, path)));
  if (missing.length > 0)
    throw new Error(`build these first (npm run build, the kiosk's web UI): ${missing.join(', ')}`);
  const major = Number(process.versions.node.split('.')[0]);
  if (major !== RUNTIME_NODE_MAJOR)
    throw new Error(
      `the runtime's native modules must be built by Node ${RUNTIME_NODE_MAJOR} (the deb depends on it), this is Node ${process.versions.node}`,
    );
  const target = join(ROOT, RUNTIME_DIR);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(target, 'package.json'));
  const count = stageRuntimeModules(process.arch);
  console.log(
    `staged package.json and ${count} production packages in ${RUNTIME_DIR} for linux-${process.arch}`,
  );
}

async function main() {
  await buildShell();
  if (process.argv.includes('--runtime')) stageRuntime();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(`build-shell failed: ${(error as Error).message}`);
    process.exit(1);
  });
}
