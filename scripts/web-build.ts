/**
 * The two web apps (the kiosk, the fleet console) are built the same way: Vite into the app's
 * dist/, and only when a source is newer than the build, so `npm start` and the browser tests
 * build once and then reuse it.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestSource(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path)
    .filter((name) => name !== 'dist' && name !== 'node_modules')
    .reduce((newest, name) => Math.max(newest, newestSource(join(path, name))), stat.mtimeMs);
}

export function webBuild(webDir: string) {
  const distDir = join(webDir, 'dist');
  const isFresh = () => {
    const built = join(distDir, 'index.html');
    return existsSync(built) && statSync(built).mtimeMs >= newestSource(webDir);
  };
  return {
    distDir,
    /** Builds unless the build is already newer than every source; answers whether it built. */
    async ensureBuilt(options: { force?: boolean; quiet?: boolean } = {}) {
      if (!options.force && isFresh()) return false;
      const { build } = await import('vite');
      await build({
        configFile: join(webDir, 'vite.config.ts'),
        root: webDir,
        logLevel: options.quiet ? 'warn' : 'info',
      });
      return true;
    },
  };
}
