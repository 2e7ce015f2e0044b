/**
 * A V8 CPU profile of one stretch of a process's life. `--cpu-prof` on the command line would cover
 * the whole run, seeding included; profiling each measure alone says where that measure's time goes.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { dirname } from 'node:path';

/** Starts sampling this process; the returned function stops and writes the profile to `file`. */
export async function startProfile() {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async (file: string) => {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(profile));
  };
}
