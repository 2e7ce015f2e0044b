/**
 * `npm run kiosk:build`: the operator UI built by Vite into appliance/kiosk/web/dist, which the
 * appliance serves at /kiosk/. `npm start` and the browser tests call `ensureKioskBuilt()`, which
 * builds only when a source is newer than the build. `--force` builds anyway.
 */
import { fileURLToPath } from 'node:url';
import { webBuild } from '../web-build.ts';

export const KIOSK_WEB_DIR = fileURLToPath(new URL('../../appliance/kiosk/web', import.meta.url));
const kiosk = webBuild(KIOSK_WEB_DIR);
export const KIOSK_DIST_DIR = kiosk.distDir;
export const ensureKioskBuilt = kiosk.ensureBuilt;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await ensureKioskBuilt({ force: process.argv.includes('--force') });
}
