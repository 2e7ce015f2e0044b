import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  createRuntimeSupervisor,
  parseEnvFile,
  RESTART_EXIT_CODE,
  RUNTIME_NODE_FLAGS,
  type RuntimeHandlers,
  restartDelayMs,
  runtimeCommand,
  runtimeEnvironment,
  SETTINGS_REFUSED_EXIT_CODE,
  STABLE_RUN_MS,
  type SupervisorTimers,
} from '../../../../appliance/kiosk/electron/runtime.ts';
import { RESTART_EXIT_CODE as APPLIANCE_RESTART_EXIT_CODE } from '../../../../appliance/main.ts';
import { APPLIANCE_NODE_FLAGS } from '../../../../scripts/build.ts';

describe('the runtime an AppImage starts', () => {
  it('runs the bundled appliance with the production Node flags', () => {
    expect(RUNTIME_NODE_FLAGS).toEqual(APPLIANCE_NODE_FLAGS);
    expect(runtimeCommand('/tmp/.mount_edgeXYZ/resources')).toEqual({
      command: 'node',
      args: ['--max-semi-space-size=4', '/tmp/.mount_edgeXYZ/resources/appliance/dist/appliance.mjs'],
    });
  });

  it('knows the appliance’s exit codes', () => {
    expect(RESTART_EXIT_CODE).toBe(APPLIANCE_RESTART_EXIT_CODE);
    expect(SETTINGS_REFUSED_EXIT_CODE).toBe(2);
  });

  it('reads settings files as systemd does', () => {
    const text = [
      '# the store',
      '; also a comment',
      '',
      'TENANT_ID=01900000-0000-7000-8000-0000000000a1',
      '  LOCATION_ID = 01900000-0000-7000-8000-0000000000c3  ',
      'APPLIANCE_STORE_NAME="Main Street"',
      "APPLIANCE_TIMEZONE='Europe/Paris'",
      'CLOUD_URL=https://cloud.example/?a=b=c',
      'EMPTY=',
      'not a setting',
      '1BAD=x',
      'export X=1',
    ].join('\r\n');
    expect(parseEnvFile(text)).toEqual({
      TENANT_ID: '01900000-0000-7000-8000-0000000000a1',
      LOCATION_ID: '01900000-0000-7000-8000-0000000000c3',
      APPLIANCE_STORE_NAME: 'Main Street',
      APPLIANCE_TIMEZONE: 'Europe/Paris',
      CLOUD_URL: 'https://cloud.example/?a=b=c',
      EMPTY: '',
    });
  });

  it('passes on only what the runtime needs from the kiosk, under its settings', () => {
    const parent = {
      PATH: '/usr/bin',
      HOME: '/home/store',
      LANG: 'en_US.UTF-8',
      APPDIR: '/tmp/.mount_edge',
      LD_LIBRARY_PATH: '/tmp/.mount_edge/usr/lib',
      ELECTRON_RUN_AS_NODE: '1',
      APPLIANCE_PORT: '1234',
    };
    const env = runtimeEnvironment(
      parent,
      { TENANT_ID: 't', APPLIANCE_DATA_DIR: '/srv/store' },
      '/home/store/.config/edge-kiosk/appliance',
    );
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/store',
      LANG: 'en_US.UTF-8',
      NODE_ENV: 'production',
      TENANT_ID: 't',
      APPLIANCE_DATA_DIR: '/srv/store',
    });
    expect(runtimeEnvironment({}, {}, '/data').APPLIANCE_DATA_DIR).toBe('/data');
  });
});

describe('the runtime supervisor', () => {
  function setUp() {
    let now = 0;
    let nextTimer = 0;
    const pending = new Map<number, { at: number; callback: () => void }>();
    const timers: SupervisorTimers = {
      now: () => now,
      setTimeout: (callback, ms) => {
        nextTimer += 1;
        pending.set(nextTimer, { at: now + ms, callback });
        return nextTimer;
      },
      clearTimeout: (handle) => {
        pending.delete(handle as number);
      },
    };
    const advance = (ms: number) => {
      now += ms;
      for (const [id, timer] of [...pending].sort((a, b) => a[1].at - b[1].at)) {
        if (timer.at > now) continue;
        pending.delete(id);
        timer.callback();
      }
    };
    const children: Array<{ handlers: RuntimeHandlers; signals: string[] }> = [];
    const supervisor = createRuntimeSupervisor({
      start: (handlers) => {
        const child = { handlers, signals: [] as string[] };
        children.push(child);
        return { kill: (signal) => child.signals.push(signal) };
      },
      timers,
      log: pino({ level: 'silent' }),
      stopTimeoutMs: 5000,
    });
    const last = () => children.at(-1)!;
    return { supervisor, children, last, advance };
  }

  it('backs off from 1 s to 30 s', () => {
    expect([0, 1, 2, 3, 5, 6, 20].map(restartDelayMs)).toEqual([
      1000, 1000, 2000, 4000, 16_000, 30_000, 30_000,
    ]);
  });

  it('starts the runtime again after it exits, backing off while it keeps failing', () => {
    const { supervisor, children, last, advance } = setUp();
    supervisor.start();
    expect(children).toHaveLength(1);
    last().handlers.exit(1);
    advance(999);
    expect(children).toHaveLength(1);
    advance(1);
    expect(children).toHaveLength(2);
    last().handlers.exit(1);
    advance(1999);
    expect(children).toHaveLength(2);
    advance(1);
    expect(children).toHaveLength(3);
    expect(supervisor.status()).toBe('running');
  });

  it('forgets past failures after a stable run, and after a restart the cloud asked for', () => {
    const { supervisor, children, last, advance } = setUp();
    supervisor.start();
    for (let i = 0; i < 4; i += 1) {
      last().handlers.exit(1);
      advance(30_000);
    }
    expect(children).toHaveLength(5);
    advance(STABLE_RUN_MS);
    last().handlers.exit(null);
    advance(1000);
    expect(children).toHaveLength(6);
    last().handlers.exit(1);
    advance(1000);
    last().handlers.exit(RESTART_EXIT_CODE);
    advance(1000);
    expect(children).toHaveLength(8);
  });

  it('leaves a runtime that refused its settings stopped, and says so', () => {
    const { supervisor, children, last, advance } = setUp();
    supervisor.start();
    last().handlers.exit(SETTINGS_REFUSED_EXIT_CODE);
    advance(60_000);
    expect(children).toHaveLength(1);
    expect(supervisor.status()).toBe('refused-settings');
  });

  it('says when there is no Node.js to run it, once, whatever follows', () => {
    const { supervisor, children, last, advance } = setUp();
    supervisor.start();
    last().handlers.error(Object.assign(new Error('spawn node ENOENT'), { code: 'ENOENT' }));
    last().handlers.exit(-2);
    advance(60_000);
    expect(children).toHaveLength(1);
    expect(supervisor.status()).toBe('no-node');
  });

  it('does not mistake a later process error for an exit', () => {
    const { supervisor, children, last, advance } = setUp();
    supervisor.start();
    last().handlers.error(Object.assign(new Error('kill EPERM'), { code: 'EPERM' }));
    advance(60_000);
    expect(children).toHaveLength(1);
    expect(supervisor.status()).toBe('running');
  });

  it('stops it with SIGTERM, then SIGKILL if it lingers, and starts nothing after', async () => {
    const { supervisor, children, last, advance } = setUp();
    supervisor.start();
    const stopped = supervisor.stop();
    expect(last().signals).toEqual(['SIGTERM']);
    advance(5000);
    expect(last().signals).toEqual(['SIGTERM', 'SIGKILL']);
    last().handlers.exit(null);
    await stopped;
    advance(60_000);
    expect(children).toHaveLength(1);
  });

  it('stops while waiting to restart without starting it again', async () => {
    const { supervisor, children, last, advance } = setUp();
    supervisor.start();
    last().handlers.exit(1);
    await supervisor.stop();
    advance(60_000);
    expect(children).toHaveLength(1);
  });
});
