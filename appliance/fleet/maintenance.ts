/**
 * What the appliance does for the cloud's auto-remediation (issue 10): restart one of its
 * services, rotate its log files, clear its caches. Logs live in `<data>/logs` (where a file log
 * transport or the supervisor writes), caches in `<data>/cache`; both hold only what the appliance
 * can lose: rotated logs are kept, cached files are fetched again when needed.
 */
import { mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.ts';

/** Rotated copies kept per log file; older ones are deleted. */
const KEEP_ROTATED = 5;

export interface FleetMaintenance {
  restartService(name: string): Promise<Record<string, unknown>>;
  rotateLogs(): Promise<Record<string, unknown>>;
  clearCaches(): Promise<Record<string, unknown>>;
}

export interface MaintenanceDeps {
  dataDir: string;
  clock: Clock;
  /** The whole appliance: stops gracefully and is started again by its supervisor. */
  restartSelf: () => void;
  /** The restart after the acknowledgement has left; tests shorten it. */
  restartDelayMs?: number | undefined;
  /** Services the appliance can restart in place, by name (besides `appliance`). */
  services?: Record<string, () => Promise<void>> | undefined;
  /** In-memory caches to empty with the cache folder, by name. */
  caches?: Record<string, () => void> | undefined;
}

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';
const stamp = (at: Date) =>
  at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

async function entries(dir: string) {
  return readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    if (missing(error)) return [];
    throw error;
  });
}

export function createMaintenance(deps: MaintenanceDeps): FleetMaintenance {
  const logs = join(deps.dataDir, 'logs');
  const cache = join(deps.dataDir, 'cache');

  async function prune(base: string) {
    const rotated = (await entries(logs))
      .map((entry) => entry.name)
      .filter((name) => name.startsWith(`${base}.`) && name !== base)
      .sort();
    for (const name of rotated.slice(0, Math.max(0, rotated.length - KEEP_ROTATED)))
      await unlink(join(logs, name));
  }

  return {
    async restartService(name) {
      if (name === 'appliance') {
        setTimeout(deps.restartSelf, deps.restartDelayMs ?? 250);
        return { service: name, restarting: true };
      }
      const restart = deps.services?.[name];
      if (!restart)
        throw new Error(
          `unknown service ${name}; this appliance restarts: ${['appliance', ...Object.keys(deps.services ?? {})].join(', ')}`,
        );
      await restart();
      return { service: name, restarted: true };
    },

    /** Each `*.log` becomes `*.log.<time>`; the writer opens a fresh file on its next line. */
    async rotateLogs() {
      const suffix = stamp(deps.clock.now());
      const rotated: string[] = [];
      for (const entry of await entries(logs)) {
        if (!entry.isFile() || !entry.name.endsWith('.log')) continue;
        await rename(join(logs, entry.name), join(logs, `${entry.name}.${suffix}`));
        rotated.push(entry.name);
        await prune(entry.name);
      }
      return { rotated, suffix };
    },

    async clearCaches() {
      let files = 0;
      let bytes = 0;
      for (const entry of await entries(cache)) {
        const path = join(cache, entry.name);
        if (entry.isFile()) {
          bytes += (await stat(path)).size;
          files += 1;
        }
        await rm(path, { recursive: true, force: true });
      }
      await mkdir(cache, { recursive: true });
      for (const clear of Object.values(deps.caches ?? {})) clear();
      return { files, bytes, memory: Object.keys(deps.caches ?? {}) };
    },
  };
}
