/**
 * The store's files on disk: `<dir>/<name>/<version>.onnx|.json` per installed version, and
 * `<dir>/<name>/current.json` naming the one that runs, replaced atomically (a temporary file
 * written and flushed, then renamed over it), so a power cut leaves the old name or the new one.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { MODEL_VERSION } from './schemas.ts';

export const CurrentSchema = Type.Object({
  name: Type.String(),
  version: Type.String({ pattern: MODEL_VERSION.source }),
  sha256: Type.String(),
  /** The installed version it replaced (kept for a manual rollback); null when that was the bundled one. */
  previous: Type.Union([Type.String({ pattern: MODEL_VERSION.source }), Type.Null()]),
  installed_at: Type.String(),
});
export type Current = Static<typeof CurrentSchema>;

/** Names of files a download or a write left behind when the appliance stopped in the middle. */
const PARTIAL = /\.(part|tmp)$/;

export const modelDir = (dir: string, name: string) => join(dir, name);
export const versionBase = (dir: string, name: string, version: string) => join(dir, name, version);
const currentFile = (dir: string, name: string) => join(dir, name, 'current.json');

/** current.json, when it is readable and its version's files are there; read at start-up, so synchronous. */
export function readCurrent(dir: string, name: string): Current | undefined {
  const file = currentFile(dir, name);
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!Value.Check(CurrentSchema, raw)) return undefined;
  const base = versionBase(dir, name, raw.version);
  return existsSync(`${base}.onnx`) && existsSync(`${base}.json`) ? raw : undefined;
}

/** Writes `data` to `file` so that a reader sees the old content or the new, never a part of it. */
export async function writeAtomically(file: string, data: string | Uint8Array) {
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDir(join(file, '..'));
}

/** The rename itself survives a power cut only once the folder is flushed. */
export async function syncDir(dir: string) {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export const writeCurrent = (dir: string, current: Current) =>
  writeAtomically(currentFile(dir, current.name), `${JSON.stringify(current, null, 2)}\n`);

/** Versions with both files on disk. */
export function installedVersions(dir: string, name: string): string[] {
  const folder = modelDir(dir, name);
  if (!existsSync(folder)) return [];
  const files = new Set(readdirSync(folder));
  return [...files]
    .filter((file) => file.endsWith('.onnx'))
    .map((file) => file.slice(0, -'.onnx'.length))
    .filter((version) => MODEL_VERSION.test(version) && files.has(`${version}.json`))
    .sort();
}

export async function removeVersion(dir: string, name: string, version: string) {
  const base = versionBase(dir, name, version);
  await rm(`${base}.onnx`, { force: true });
  await rm(`${base}.json`, { force: true });
}

/** Deletes what a stop in the middle of a download or a write left in the model's folder. */
export async function removePartials(dir: string, name: string) {
  const folder = modelDir(dir, name);
  const files = await readdir(folder).catch(() => [] as string[]);
  await Promise.all(
    files.filter((file) => PARTIAL.test(file)).map((file) => rm(join(folder, file), { force: true })),
  );
}
