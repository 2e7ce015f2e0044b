/**
 * `npm run console:build`: the fleet console built by Vite into cloud/console/web/dist, which the
 * cloud gateway serves at /console/. `npm start`, the browser tests and the benchmark call
 * `ensureConsoleBuilt()`, which builds only when a source is newer than the build. `--force` builds
 * anyway.
 */
import { fileURLToPath } from 'node:url';
import { webBuild } from '../web-build.ts';

export const CONSOLE_WEB_DIR = fileURLToPath(new URL('../../cloud/console/web', import.meta.url));
const consoleApp = webBuild(CONSOLE_WEB_DIR);
export const CONSOLE_DIST_DIR = consoleApp.distDir;
export const ensureConsoleBuilt = consoleApp.ensureBuilt;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await ensureConsoleBuilt({ force: process.argv.includes('--force') });
}
