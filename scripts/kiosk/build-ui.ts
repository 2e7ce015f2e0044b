/**
 * `npm run kiosk:build`: the operator UI built by Vite into appliance/kiosk/web/dist, which the
 * appliance serves at /kiosk/. `npm start` and the browser tests call `ensureKioskBuilt()`, which
 * builds only when a source is newer than the build. `--force` builds anyway.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const KIOSK_WEB_DIR = fileURLToPath(new URL('../../appliance/kiosk/web', import.meta.url));
export const KIOSK_DIST_DIR = join(KIOSK_WEB_DIR, 'dist');

function newestSource(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path)
    .filter((name) => name !== 'dist' && name !== 'node_modules')
    .reduce((newest, name) => Math.max(newest, newestSource(join(path, name))), stat.mtimeMs);
}

export function kioskBuildIsFresh() {
  const built = join(KIOSK_DIST_DIR, 'index.html');
  return existsSync(built) && statSync(built).mtimeMs >= newestSource(KIOSK_WEB_DIR);
}

/** Builds the UI unless the build is already newer than every source; answers whether it built. */
export async function ensureKioskBuilt(options: { force?: boolean; quiet?: boolean } = {}) {
  if (!options.force && kioskBuildIsFresh()) return false;
  const { build } = await import('vite');
  await build({
    configFile: join(KIOSK_WEB_DIR, 'vite.config.ts'),
    root: KIOSK_WEB_DIR,
    logLevel: options.quiet ? 'warn' : 'info',
  });
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await ensureKioskBuilt({ force: process.argv.includes('--force') });
}
