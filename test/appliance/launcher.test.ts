import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APPLIANCE_SETTINGS } from '../../appliance/config.ts';
import {
  installPaths,
  MAX_UNCONFIRMED_BOOTS,
  pointCurrentAt,
  readInstallState,
  writeInstallState,
} from '../../appliance/fleet/install-state.ts';
import { DEFAULT_DATA_DIR } from '../../appliance/fleet/launcher.ts';
import { APPLIANCE_NODE_FLAGS, RESTART_EXIT_CODE } from '../../appliance/process-codes.ts';
import { bundle } from '../../scripts/build.ts';
import { exited, waitFor } from '../support/processes.ts';

/**
 * A stand-in for a version's appliance.mjs: it prints which version it is, what it was run with
 * and the launcher's data dir, then does `body` (by default: exits with its code in FAKE_EXITS).
 */
function fakeAppliance(dir: string, name: string, body = EXIT_AS_TOLD) {
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(
    join(dir, 'dist', 'appliance.mjs'),
    `import * as fs from 'node:fs';
import * as path from 'node:path';
const version = ${JSON.stringify(name)};
const data = process.env.APPLIANCE_DATA_DIR;
// main: whether the appliance's own start check (appliance/main.ts) would let it start.
const main = import.meta.url === \`file://\${process.argv[1]}\`;
console.log(JSON.stringify({ fake: version, argv: process.argv.slice(2), execArgv: process.execArgv, main }));
${body}
`,
  );
}

const EXIT_AS_TOLD = 'process.exit(JSON.parse(process.env.FAKE_EXITS ?? "{}")[version] ?? 0);';

/** What an update does: point `current` at the next version, then ask to be started again. */
const SWITCH_TO = (next: string) => `
fs.symlinkSync(path.join('versions', ${JSON.stringify(next)}), path.join(data, 'updates', 'current.next'));
fs.renameSync(path.join(data, 'updates', 'current.next'), path.join(data, 'updates', 'current'));
process.exit(${RESTART_EXIT_CODE});`;

/** Runs until signalled, then says what it got and exits with 0 for SIGTERM, 7 for anything else. */
const WAIT_FOR_SIGNAL = `
const stop = (signal) => { console.log(JSON.stringify({ fake: version, got: signal })); process.exit(signal === 'SIGTERM' ? 0 : 7); };
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
setInterval(() => {}, 1000);
console.log(JSON.stringify({ fake: version, ready: true }));`;

/** Confirms itself as the appliance would after its self-check, then crashes. */
const CONFIRM_THEN_CRASH = `
const file = path.join(data, 'updates', 'state.json');
fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), confirming: null }));
process.exit(1);`;

interface Line {
  fake?: string;
  msg?: string;
  module?: string;
  level?: number;
  [key: string]: unknown;
}

describe('the launcher', () => {
  let root = '';
  let release = '';
  const running: ChildProcess[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'launcher-'));
    release = join(root, 'release');
    await bundle('appliance/fleet/launcher.ts', join(release, 'dist', 'launcher.mjs'));
    fakeAppliance(release, 'installed');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  afterEach(async () => {
    for (const child of running.splice(0)) {
      child.kill('SIGKILL');
      await exited(child);
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const dataDir = () => {
    const dir = mkdtempSync(join(root, 'data-'));
    dirs.push(dir);
    return dir;
  };
  const version = (data: string, name: string, body?: string) =>
    fakeAppliance(installPaths(data).version(name), name, body);

  function launch(data: string, env: Record<string, string> = {}, args: string[] = []) {
    const child = spawn(process.execPath, [join(release, 'dist', 'launcher.mjs'), ...args], {
      env: { ...process.env, APPLIANCE_DATA_DIR: data, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    running.push(child);
    const lines: Line[] = [];
    let pending = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const parts = (pending + chunk.toString()).split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts) lines.push(JSON.parse(part) as Line);
    });
    const code = new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit)));
    return { child, lines, code, runs: () => lines.filter((line) => line.fake && !line.got && !line.ready) };
  }

  it('uses the data folder the appliance uses by default', () => {
    expect(DEFAULT_DATA_DIR).toBe(APPLIANCE_SETTINGS.dataDir.default);
  });

  it('runs the version current points at, with the appliance’s flags and its own arguments, and exits as it did', async () => {
    const data = dataDir();
    version(data, '1.0.0');
    await pointCurrentAt(data, '1.0.0');
    const run = launch(data, { FAKE_EXITS: '{"1.0.0":3}' }, ['--inspect-nothing', 'x']);
    expect(await run.code).toBe(3);
    expect(run.runs()).toEqual([
      { fake: '1.0.0', argv: ['--inspect-nothing', 'x'], execArgv: [...APPLIANCE_NODE_FLAGS], main: true },
    ]);
    const started = run.lines.find((line) => line.msg === 'starting the appliance');
    expect(started).toMatchObject({ level: 30, module: 'launcher', version: '1.0.0' });
    expect(started!.time).toEqual(expect.any(Number));
  });

  it('runs the build it was installed with when no version is current, or the current one holds no appliance', async () => {
    const data = dataDir();
    const fresh = launch(data);
    expect(await fresh.code).toBe(0);
    expect(fresh.runs().map((line) => line.fake)).toEqual(['installed']);

    mkdirSync(installPaths(data).version('9.9.9'), { recursive: true });
    await pointCurrentAt(data, '9.9.9');
    const empty = launch(data);
    expect(await empty.code).toBe(0);
    expect(empty.runs().map((line) => line.fake)).toEqual(['installed']);
    expect(empty.lines.some((line) => line.level === 40 && /holds no appliance/.test(line.msg ?? ''))).toBe(
      true,
    );
  });

  it('runs a version so that it starts when the data folder is reached through a link', async () => {
    const data = dataDir();
    version(data, '1.0.0');
    await pointCurrentAt(data, '1.0.0');
    const linked = `${data}-link`;
    symlinkSync(data, linked);
    dirs.push(linked);
    const run = launch(linked);
    expect(await run.code).toBe(0);
    expect(run.runs()).toMatchObject([{ fake: '1.0.0', main: true }]);
  });

  it('starts the appliance again at once when it exits 75, from the version current points at by then', async () => {
    const data = dataDir();
    version(data, '1.0.0', SWITCH_TO('2.0.0'));
    version(data, '2.0.0');
    await pointCurrentAt(data, '1.0.0');
    const run = launch(data);
    expect(await run.code).toBe(0);
    expect(run.runs().map((line) => line.fake)).toEqual(['1.0.0', '2.0.0']);
  });

  it(`goes back to the previous version when an unconfirmed one keeps failing for ${MAX_UNCONFIRMED_BOOTS} starts`, async () => {
    const data = dataDir();
    version(data, '1.0.0');
    version(data, '2.0.0');
    await pointCurrentAt(data, '2.0.0');
    await writeInstallState(data, {
      confirming: { version: '2.0.0', previous: '1.0.0', boots: 0 },
      reverted: null,
    });
    const before = Date.now();
    const run = launch(data, { FAKE_EXITS: '{"2.0.0":1}' });
    expect(await run.code).toBe(0);
    expect(run.runs().map((line) => line.fake)).toEqual([
      ...Array<string>(MAX_UNCONFIRMED_BOOTS).fill('2.0.0'),
      '1.0.0',
    ]);
    expect(readlinkSync(installPaths(data).current)).toBe(join('versions', '1.0.0'));
    const state = await readInstallState(data);
    expect(state).toEqual({
      confirming: null,
      reverted: {
        version: '2.0.0',
        previous: '1.0.0',
        reason: `the new version did not start and confirm its health in ${MAX_UNCONFIRMED_BOOTS} tries`,
        at: expect.any(String),
      },
    });
    expect(Date.parse(state.reverted!.at)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('goes back to the installed build when the failing version was the first update', async () => {
    const data = dataDir();
    version(data, '2.0.0');
    await pointCurrentAt(data, '2.0.0');
    await writeInstallState(data, {
      confirming: { version: '2.0.0', previous: undefined, boots: MAX_UNCONFIRMED_BOOTS - 1 },
      reverted: null,
    });
    const run = launch(data, { FAKE_EXITS: '{"2.0.0":70}' });
    expect(await run.code).toBe(0);
    expect(run.runs().map((line) => line.fake)).toEqual(['2.0.0', 'installed']);
    expect(() => readlinkSync(installPaths(data).current)).toThrow(/ENOENT/);
    expect((await readInstallState(data)).reverted).toMatchObject({ version: '2.0.0' });
  });

  it('leaves a crash to the supervisor once the version has confirmed', async () => {
    const data = dataDir();
    version(data, '2.0.0', CONFIRM_THEN_CRASH);
    await pointCurrentAt(data, '2.0.0');
    await writeInstallState(data, {
      confirming: { version: '2.0.0', previous: '1.0.0', boots: 0 },
      reverted: null,
    });
    const run = launch(data);
    expect(await run.code).toBe(1);
    expect(run.runs().map((line) => line.fake)).toEqual(['2.0.0']);
    expect(await readInstallState(data)).toEqual({ confirming: null, reverted: null });
  });

  for (const [signal, code] of [
    ['SIGTERM', 0],
    ['SIGINT', 7],
  ] as const) {
    it(`passes ${signal} to the appliance once and exits with its code`, async () => {
      const data = dataDir();
      version(data, '1.0.0', WAIT_FOR_SIGNAL);
      await pointCurrentAt(data, '1.0.0');
      const run = launch(data);
      await waitFor('the appliance to start', () => run.lines.find((line) => line.ready) ?? undefined);
      run.child.kill(signal);
      expect(await run.code).toBe(code);
      expect(run.lines.filter((line) => line.got)).toEqual([{ fake: '1.0.0', got: signal }]);
      expect(run.runs()).toHaveLength(1);
    });
  }
});
