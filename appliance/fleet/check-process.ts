import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { identityDir } from '../identity/index.ts';
import { APPLIANCE_NODE_FLAGS } from '../process-codes.ts';
import { type HealthReport, SCRATCH_MARKER } from './health-check.ts';
import { installPaths } from './install-state.ts';

/**
 * The new version's health check as a process of its own, run by the version that is installing
 * it: a scratch copy of the store's data (its databases copied consistently while the store keeps
 * writing, and the enrolled identity the start reads), the NEW version's bundle with
 * `--health-check`, its one line of JSON read back, and a time limit past which it is killed.
 */

export const CHECK_TIMEOUT_MS = 60_000;

type Env = Record<string, string | undefined>;

/** Copies what an appliance's start reads from its data directory into `scratch`. */
export async function prepareScratchData(dataDir: string, scratch: string) {
  await mkdir(scratch, { recursive: true });
  // SQLite's online backup: a consistent copy while the running appliance goes on writing.
  for (const name of await readdir(dataDir)) {
    if (!name.endsWith('.sqlite')) continue;
    const source = new Database(join(dataDir, name), { readonly: true, fileMustExist: true });
    try {
      await source.backup(join(scratch, name));
    } finally {
      source.close();
    }
  }
  if (existsSync(identityDir(dataDir)))
    await cp(identityDir(dataDir), identityDir(scratch), { recursive: true });
  await writeFile(join(scratch, SCRATCH_MARKER), 'a copy of a store’s data for an update’s health check\n');
}

/**
 * The appliance's own environment with the scratch data and nothing that listens where the store
 * does or reaches out for it; `--health-check` enforces the same whatever it is given, since an
 * older version's environment may not know a newer version's switches.
 */
export function checkEnvironment(env: Env, scratch: string): Env {
  return {
    ...env,
    APPLIANCE_DATA_DIR: scratch,
    APPLIANCE_PORT: '0',
    APPLIANCE_HOST: '127.0.0.1',
    APPLIANCE_MQTT_PORT: '',
    APPLIANCE_MQTT_TLS_PORT: '0',
    APPLIANCE_FLEET_URL: '',
    APPLIANCE_VISION: 'off',
    // A check must never trade the one-time enrolment token.
    APPLIANCE_ENROLLMENT_TOKEN: '',
  };
}

const isReport = (value: unknown): value is HealthReport =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as HealthReport).healthy === 'boolean' &&
  Array.isArray((value as HealthReport).checks);

/** The last line of stdout that is a report. */
function reportIn(stdout: string): HealthReport | undefined {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const parsed = JSON.parse(line) as unknown;
      if (isReport(parsed)) return parsed;
    } catch {
      // Not the report: a log line from a version that writes its logs to stdout.
    }
  }
  return undefined;
}

/** What a process that died without a report said last (its stack frames left out). */
const lastWords = (stderr: string) =>
  stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('at '))
    .slice(-3)
    .join(' ')
    .slice(-300);

const unhealthy = (detail: string): HealthReport => ({
  healthy: false,
  version: undefined,
  checks: [{ name: 'process', ok: false, detail }],
});

/** Runs a check process to its end (or its time limit) and reads its report. */
export function runCheckProcess(run: {
  command: string;
  args: string[];
  cwd: string;
  env: Env;
  timeoutMs?: number | undefined;
}): Promise<HealthReport> {
  const timeoutMs = run.timeoutMs ?? CHECK_TIMEOUT_MS;
  return new Promise((resolve) => {
    const child = spawn(run.command, run.args, {
      cwd: run.cwd,
      env: run.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout = (stdout + chunk.toString()).slice(-64 * 1024);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-16 * 1024);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve(unhealthy(`the check could not start: ${error.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (timedOut)
        return resolve(unhealthy(`the check did not finish within ${timeoutMs / 1000} s and was killed`));
      const report = reportIn(stdout);
      if (!report)
        return resolve(
          unhealthy(`the check exited with code ${code} without a report: ${lastWords(stderr)}`),
        );
      if (report.healthy && code !== 0)
        return resolve(unhealthy(`the check reported healthy but exited with code ${code}`));
      resolve(report);
    });
  });
}

/** The new version in `versionDir` checks itself on a scratch copy of the store's data. */
export async function checkVersion(check: {
  dataDir: string;
  versionDir: string;
  version: string;
  env: Env;
  timeoutMs?: number | undefined;
}): Promise<HealthReport> {
  const scratch = join(
    installPaths(check.dataDir).checks,
    `${check.version}-${randomBytes(4).toString('hex')}`,
  );
  try {
    await prepareScratchData(check.dataDir, scratch);
    return await runCheckProcess({
      command: process.execPath,
      args: [...APPLIANCE_NODE_FLAGS, join(check.versionDir, 'dist', 'appliance.mjs'), '--health-check'],
      cwd: check.versionDir,
      env: checkEnvironment(check.env, scratch),
      timeoutMs: check.timeoutMs,
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
