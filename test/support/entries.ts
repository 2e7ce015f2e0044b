import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The entry points tests start as processes, by the file name each takes in a bundle. The
 * detection worker has no test of its own here: the appliance's bundle loads it from beside itself.
 */
const BUNDLED_ENTRIES: Record<string, string> = {
  'appliance/main.ts': 'appliance.mjs',
  // What a store's supervisor runs; it starts its sibling appliance.mjs.
  'appliance/fleet/launcher.ts': 'launcher.mjs',
  'appliance/vision/detect/worker.ts': 'vision-detect-worker.mjs',
  'cloud/main.ts': 'cloud.mjs',
  'cloud/webhook-worker.ts': 'webhook-worker.mjs',
  'cloud/notify-worker.ts': 'notify-worker.mjs',
  'cloud/edge/main.ts': 'edge.mjs',
  'cloud/ctl/main.ts': 'ctl.mjs',
};

/** Set by the global set-up for the run's workers: where this run's bundles are. */
const ENTRY_DIR_VARIABLE = 'TEST_ENTRY_DIR';
const FOLDER_PREFIX = '.test-entries-';

/**
 * Node's arguments to run one of our entry points (a path from the repository's root): the run's
 * bundle of it when there is one, else the source through tsx's loader. Either way node itself runs
 * it, so a signal hits the process under test and not a wrapper. A bundle is what `npm run build`
 * ships and starts in about half the time tsx takes to compile the sources, which the crash tests,
 * starting dozens of processes one after another, feel most.
 */
export function entryArgs(script: string): string[] {
  const dir = process.env[ENTRY_DIR_VARIABLE];
  const name = BUNDLED_ENTRIES[script];
  if (dir && name && existsSync(join(dir, name))) return [join(dir, name)];
  return ['--import', 'tsx', join(root, script)];
}

/**
 * Once per run (not in watch mode, where sources change under a run): every entry bundled as
 * `npm run build` bundles it, into a folder one level below package.json as dist/ is (the code finds
 * its models and kiosk files from there), written under a temporary name and then renamed, so a
 * worker sees all of them or none. Answers the folder, to remove at the end of the run.
 */
export async function bundleEntries(runId: string, staleAfterMs: number): Promise<string> {
  removeStaleFolders(staleAfterMs);
  const { bundle } = await import('../../scripts/build.ts');
  const dir = join(root, `${FOLDER_PREFIX}${runId}`);
  const building = `${dir}.partial`;
  mkdirSync(building, { recursive: true });
  await Promise.all(
    Object.entries(BUNDLED_ENTRIES).map(([entry, name]) => bundle(entry, join(building, name))),
  );
  renameSync(building, dir);
  process.env[ENTRY_DIR_VARIABLE] = dir;
  return dir;
}

/** Bundles of runs killed before their teardown. */
function removeStaleFolders(staleAfterMs: number) {
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (name.startsWith(FOLDER_PREFIX) && Date.now() - statSync(path).mtimeMs > staleAfterMs)
      rmSync(path, { recursive: true, force: true });
  }
}
