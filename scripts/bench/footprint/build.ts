/**
 * The compiled programs the footprint is measured on, bundled as a release bundles them
 * (scripts/build.ts `bundle`: the appliance, its detection worker beside it, the launcher) plus the
 * cloud as `npm run build` bundles it, into a release's layout of their own under
 * dist/bench/footprint/: `package.json` (the appliance reads its version there) and `dist/*.mjs`.
 * Kept apart from dist/ so that a build someone else starts meanwhile cannot change what is run.
 * Packages resolve from the repository's node_modules, one level up the tree, as the bundles
 * leave them external.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle, ENTRIES } from '../../build.ts';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const FOOTPRINT_ROOT = join(REPO_ROOT, 'dist/bench/footprint');

const BUILT = ['appliance', 'vision-detect-worker', 'launcher', 'cloud'] as const;
export type Built = (typeof BUILT)[number];

export interface Bundles {
  files: Record<Built, string>;
  build_seconds: number;
  /** Each bundle's size, so two runs can be told apart by what they ran. */
  bytes: Record<Built, number>;
}

export async function buildBundles(): Promise<Bundles> {
  const started = performance.now();
  await mkdir(join(FOOTPRINT_ROOT, 'dist'), { recursive: true });
  const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  await writeFile(
    join(FOOTPRINT_ROOT, 'package.json'),
    `${JSON.stringify({ name: 'footprint-bench', version: pkg.version, private: true, type: 'module' })}\n`,
  );
  const files = Object.fromEntries(
    BUILT.map((name) => [name, join(FOOTPRINT_ROOT, 'dist', `${name}.mjs`)]),
  ) as Record<Built, string>;
  const results = await Promise.all(BUILT.map((name) => bundle(ENTRIES[name], files[name])));
  const bytes = Object.fromEntries(
    BUILT.map((name, i) => {
      const outputs = results[i]!.metafile.outputs;
      const output = Object.entries(outputs).find(([path]) => path.endsWith(`${name}.mjs`));
      return [name, output?.[1].bytes ?? 0];
    }),
  ) as Record<Built, number>;
  return { files, bytes, build_seconds: Math.round((performance.now() - started) / 100) / 10 };
}
