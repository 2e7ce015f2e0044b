/**
 * `npm run build`: the appliance and the cloud as single JavaScript files (`dist/*.mjs`), what a
 * deployment runs: Node alone, without the TypeScript loader development uses (tsx costs some
 * 30 MB of resident memory before the first line runs, a fifth of an appliance's broker budget).
 * Packages stay in node_modules (native ones cannot be bundled), so the files run from this
 * checkout or from a package that ships node_modules beside them.
 */
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

// The launcher runs the appliance with these flags too, so they live with the appliance's code.
export { APPLIANCE_NODE_FLAGS } from '../appliance/process-codes.ts';

/** Entry points by output name; outputs sit in dist/, one level below package.json as their sources do. */
export const ENTRIES = {
  appliance: 'appliance/main.ts',
  cloud: 'cloud/main.ts',
  'webhook-worker': 'cloud/webhook-worker.ts',
  edge: 'cloud/edge/main.ts',
  // The appliance's detection runs in worker threads, which load this file beside its bundle.
  'vision-detect-worker': 'appliance/vision/detect/worker.ts',
  // What a supervisor runs in a release: it starts the appliance from the version an update chose.
  launcher: 'appliance/fleet/launcher.ts',
} as const;

/**
 * @peculiar/x509's dependency injection (tsyringe) checks for the Reflect metadata API as it
 * loads, which shared/devices/reflect-metadata.ts provides. In a bundle, imports of external
 * packages are evaluated before any bundled code, the shim included; bundled too, the library
 * loads where the source imports it, after the shim.
 */
const BUNDLED_PACKAGES = /^(@peculiar\/|tsyringe$|tslib$|pvtsutils$|pvutils$|asn1js$|@noble\/)/;

/** Every package stays in node_modules, but for those above. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('node:') || !BUNDLED_PACKAGES.test(args.path)
        ? { path: args.path, external: true }
        : undefined,
    );
  },
};

/**
 * Bundles one entry to `outfile` (absolute, or relative to the repository); answers esbuild's
 * result with its metafile. `write: false` keeps the files in memory (a release takes them from
 * there), named as if written to `outfile`, so their source maps are those of `npm run build`.
 */
export async function bundle(entry: string, outfile: string, options: { write?: boolean } = {}) {
  return build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [externalPackages],
    sourcemap: true,
    metafile: true,
    write: options.write ?? true,
    logLevel: 'warning',
  });
}

/** Every entry to `dist/<name>.mjs`; answers the files written. */
export async function buildAll() {
  const files = Object.keys(ENTRIES).map((name) => `dist/${name}.mjs`);
  await Promise.all(Object.values(ENTRIES).map((entry, i) => bundle(entry, files[i]!)));
  return files;
}

async function main() {
  const started = performance.now();
  const files = await buildAll();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`built ${files.join(', ')} in ${seconds} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(`build failed: ${(error as Error).message}`);
    process.exit(1);
  });
}
