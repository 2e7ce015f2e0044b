/**
 * `npm run release [-- --version <v>] [-- --out <dir>]`: the appliance as a versioned archive a
 * store machine installs and runs without this repository (docs/releases.md, "Building a release"):
 *
 *   release/appliance-<version>.tar.gz          the bundles, node_modules for this machine's
 *                                               platform, models, kiosk UI and release.json
 *   release/appliance-<version>.manifest.json   its size and SHA-256, the commit, the platform
 *
 * The same commit and options make the same archive, byte for byte.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isPlainVersion } from '../shared/devices/update-manifest.ts';
import { type BuiltRelease, buildRelease, type ReleaseOptions } from './release/assemble.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const USAGE = 'usage: npm run release -- [--version <version>] [--out <dir>]';

export class UsageError extends Error {
  override name = 'UsageError';
}

/** The options, or a UsageError saying what is wrong with them. */
export function parseReleaseArgs(
  argv: readonly string[],
  cwd = process.cwd(),
): Omit<ReleaseOptions, 'onStep'> {
  let values: { version?: string | undefined; out?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { version: { type: 'string' }, out: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.version !== undefined && !isPlainVersion(values.version))
    throw new UsageError(
      `--version "${values.version}" is not a plain version: letters, digits, '.', '+' and '-', starting with a letter or digit, at most 64`,
    );
  if (values.out === '') throw new UsageError('--out needs a folder');
  return { version: values.version, outDir: resolve(cwd, values.out ?? resolve(ROOT, 'release')) };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Each step on its own line: its name when it starts, its time and what it did when done. */
const progress: NonNullable<ReleaseOptions['onStep']> = {
  start: (step) => process.stdout.write(`  ${step.padEnd(10)}`),
  done: ({ ms, detail }) => process.stdout.write(`${seconds(ms).padStart(8)}  ${detail}\n`),
};

/** The biggest parts, uncompressed, and the rest summed up. */
function printParts(release: BuiltRelease, shown = 12) {
  const rows = release.parts.slice(0, shown);
  const rest = release.parts.slice(shown);
  if (rest.length > 0)
    rows.push({
      name: `${rest.length} more`,
      files: rest.reduce((sum, part) => sum + part.files, 0),
      bytes: rest.reduce((sum, part) => sum + part.bytes, 0),
    });
  const total = release.parts.reduce(
    (sum, part) => ({ files: sum.files + part.files, bytes: sum.bytes + part.bytes }),
    { files: 0, bytes: 0 },
  );
  const line = (name: string, files: number | string, size: string) =>
    console.log(`  ${name.padEnd(30)}${String(files).padStart(7)}${size.padStart(12)}`);
  console.log('');
  line('part (uncompressed)', 'files', 'size');
  for (const part of rows) line(part.name, part.files, megabytes(part.bytes));
  line('total', total.files, megabytes(total.bytes));
  console.log('');
}

async function main() {
  let options: Omit<ReleaseOptions, 'onStep'>;
  try {
    options = parseReleaseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`release: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
  const started = performance.now();
  console.log(
    `release: the appliance for ${process.platform}-${process.arch}, Node ABI ${process.versions.modules}`,
  );
  const release = await buildRelease({ ...options, onStep: progress });
  printParts(release);
  const { manifest } = release;
  if (manifest.dirty) console.log('note: built with uncommitted changes; the manifest says dirty: true');
  console.log(
    `${release.archive}  ${megabytes(manifest.size)}  sha256 ${manifest.sha256}  (version ${manifest.version}, ${seconds(performance.now() - started)})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stdout.write('\n');
    console.error(`release failed: ${(error as Error).message}`);
    process.exit(1);
  });
}
