/**
 * `npm run console:build`: the fleet console built by Vite into cloud/console/web/dist, which the
 * cloud gateway serves at /console/. `npm start` calls `ensureConsoleBuilt()`, which builds only
 * when a source is newer than the build. `--force` builds anyway.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONSOLE_WEB_DIR = fileURLToPath(new URL('../../cloud/console/web', import.meta.url));
export const CONSOLE_DIST_DIR = join(CONSOLE_WEB_DIR, 'dist');

function newestSource(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path)
    .filter((name) => name !== 'dist' && name !== 'node_modules')
    .reduce((newest, name) => Math.max(newest, newestSource(join(path, name))), stat.mtimeMs);
}

export function consoleBuildIsFresh() {
  const built = join(CONSOLE_DIST_DIR, 'index.html');
  return existsSync(built) && statSync(built).mtimeMs >= newestSource(CONSOLE_WEB_DIR);
}

/** Builds the console unless the build is already newer than every source; answers whether it built. */
export async function ensureConsoleBuilt(options: { force?: boolean; quiet?: boolean } = {}) {
  if (!options.force && consoleBuildIsFresh()) return false;
  const { build } = await import('vite');
  await build({
    configFile: join(CONSOLE_WEB_DIR, 'vite.config.ts'),
    root: CONSOLE_WEB_DIR,
    logLevel: options.quiet ? 'warn' : 'info',
  });
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await ensureConsoleBuilt({ force: process.argv.includes('--force') });
}
