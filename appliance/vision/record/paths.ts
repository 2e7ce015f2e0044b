import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * The absolute path of `name` under `dir`, refusing anything that would land outside it (`..`,
 * an absolute name): whatever builds a name, snapshots are written and deleted only in their dir.
 */
export function insideDir(dir: string, name: string): string {
  const root = resolve(dir);
  const file = resolve(root, name);
  if (!isWithin(root, file) || file === root) throw new Error(`path escapes the snapshots dir: ${name}`);
  return file;
}

export function isWithin(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
