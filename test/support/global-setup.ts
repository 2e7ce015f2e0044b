import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundleEntries } from './entries.ts';
import {
  createPostgresTemplate,
  dropPostgresDatabases,
  MEMORY_TMP,
  migrateSqliteTemplate,
  STALE_AFTER_MS,
  type StoreTemplates,
} from './store-templates.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    storeTemplates: StoreTemplates;
  }
}

interface Run {
  templates: StoreTemplates;
  tmp: string;
  entries?: string;
  teardown?: Promise<void>;
}

// Every project of the run calls this; they share one set of templates (one process, one global).
const runs = globalThis as { testStoreRun?: Promise<Run> };

/**
 * Once per run, before any worker starts: a scratch folder in memory for everything tests write
 * (SQLite files, appliance data, sockets), where an fsync costs nothing, and the cloud store
 * migrated once, as a SQLite file and as a PostgreSQL template database, that every test store
 * starts as a copy of (21 migrations take 1–3 s; a copy takes tens of milliseconds); and, unless
 * sources may change under the run (watch mode), the entry points bundled for the tests that start
 * them as processes.
 */
async function prepareRun(watching: boolean): Promise<Run> {
  const base = existsSync(MEMORY_TMP) ? MEMORY_TMP : tmpdir();
  mkdirSync(base, { recursive: true });
  removeStaleFolders(base);
  const tmp = mkdtempSync(join(base, 'vitest-'));
  // Workers start after global set-up and inherit this environment; os.tmpdir() reads TMPDIR.
  process.env.TMPDIR = tmp;
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const sqlite = await migrateSqliteTemplate(tmp);
  const [pg, entries] = await Promise.all([
    process.env.TEST_DATABASE_URL ? createPostgresTemplate(process.env.TEST_DATABASE_URL, runId) : undefined,
    watching ? undefined : bundleEntries(runId, STALE_AFTER_MS),
  ]);
  return { templates: { sqlite, ...(pg ? { pg } : {}) }, tmp, ...(entries ? { entries } : {}) };
}

/** Folders of runs that were killed before their teardown. */
function removeStaleFolders(base: string) {
  for (const name of readdirSync(base)) {
    const path = join(base, name);
    if (name.startsWith('vitest-') && Date.now() - statSync(path).mtimeMs > STALE_AFTER_MS)
      rmSync(path, { recursive: true, force: true });
  }
}

async function finishRun(run: Run) {
  if (run.templates.pg) await dropPostgresDatabases(process.env.TEST_DATABASE_URL!, run.templates.pg.prefix);
  rmSync(run.tmp, { recursive: true, force: true });
  if (run.entries) rmSync(run.entries, { recursive: true, force: true });
}

export default async function setup(project: TestProject) {
  runs.testStoreRun ??= prepareRun(project.vitest.config.watch);
  const run = await runs.testStoreRun;
  project.provide('storeTemplates', run.templates);
  return async () => {
    run.teardown ??= finishRun(run);
    await run.teardown;
  };
}
