import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadShellConfig, type ShellConfigInput } from '../../../../appliance/kiosk/electron/config.ts';
import { createKioskController, type KioskPage } from '../../../../appliance/kiosk/electron/controller.ts';
import {
  apiIsUp,
  type HealthProbe,
  healthUrl,
  retryDelayMs,
  waitForApi,
} from '../../../../appliance/kiosk/electron/health.ts';
import { isPermissionAllowed } from '../../../../appliance/kiosk/electron/permissions.ts';
import {
  SLOW_START_MS,
  startingPageUrl,
  waitingDetail,
} from '../../../../appliance/kiosk/electron/starting-page.ts';
import { WATCHDOG_TIMINGS, type WatchdogTimers } from '../../../../appliance/kiosk/electron/watchdog.ts';

const silent = pino({ level: 'silent' });

describe('the shell’s settings', () => {
  const input = (overrides: Partial<ShellConfigInput> = {}): ShellConfigInput => ({
    argv: ['/opt/edge-kiosk/edge-kiosk'],
    env: {},
    readRuntimeSettings: () => undefined,
    ...overrides,
  });

  it('is a production kiosk on the default port, starting no runtime, by default', () => {
    expect(loadShellConfig(input())).toEqual({
      production: true,
      logLevel: 'info',
      port: 8090,
      kioskUrl: 'http://127.0.0.1:8090/kiosk/',
      appImage: undefined,
      spawnRuntime: false,
      runtimeSettings: undefined,
    });
  });

  it('takes the port from --port, then the AppImage runtime’s settings, then APPLIANCE_PORT', () => {
    const env = { APPLIANCE_PORT: '9000', APPIMAGE: '/home/store/Edge.AppImage' };
    const readRuntimeSettings = () => ({ APPLIANCE_PORT: '9100' });
    expect(loadShellConfig(input({ env: { APPLIANCE_PORT: '9000' } })).port).toBe(9000);
    expect(loadShellConfig(input({ env, readRuntimeSettings })).port).toBe(9100);
    expect(loadShellConfig(input({ env, readRuntimeSettings, argv: ['k', '--port=9200'] })).kioskUrl).toBe(
      'http://127.0.0.1:9200/kiosk/',
    );
  });

  it('reads the runtime’s settings only when it starts the runtime', () => {
    let reads = 0;
    const readRuntimeSettings = () => {
      reads += 1;
      return { APPLIANCE_PORT: '9100' };
    };
    expect(loadShellConfig(input({ readRuntimeSettings })).port).toBe(8090);
    const noRuntime = loadShellConfig(
      input({ env: { APPIMAGE: '/a.AppImage' }, argv: ['k', '--no-runtime'], readRuntimeSettings }),
    );
    expect(noRuntime).toMatchObject({ appImage: '/a.AppImage', spawnRuntime: false, port: 8090 });
    expect(reads).toBe(0);
    const appImage = loadShellConfig(input({ env: { APPIMAGE: '/a.AppImage' }, readRuntimeSettings }));
    expect(appImage).toMatchObject({ spawnRuntime: true, runtimeSettings: { APPLIANCE_PORT: '9100' } });
    expect(reads).toBe(1);
  });

  it('is a development window with --dev, and leaves Chromium’s switches alone', () => {
    const config = loadShellConfig(
      input({ argv: ['electron', '.', '--dev', '--no-sandbox', '--enable-logging'] }),
    );
    expect(config.production).toBe(false);
  });

  it('refuses a port that is not one', () => {
    for (const port of ['0', '65536', '80a', '-1', ' 8090', '1e3'])
      expect(() => loadShellConfig(input({ argv: ['k', `--port=${port}`] })), port).toThrow(
        /port from 1 to 65535/,
      );
    expect(() => loadShellConfig(input({ env: { APPLIANCE_PORT: 'x' } }))).toThrow(/APPLIANCE_PORT/);
  });

  it('logs at LOG_LEVEL, one of pino’s', () => {
    expect(loadShellConfig(input({ env: { LOG_LEVEL: 'debug' } })).logLevel).toBe('debug');
    expect(() => loadShellConfig(input({ env: { LOG_LEVEL: 'verbose' } }))).toThrow(
      /LOG_LEVEL must be one of/,
    );
  });
});

describe('waiting for the local API', () => {
  function fakeProbe(answers: Array<number | Error>) {
    let now = 0;
    const asked: string[] = [];
    const slept: number[] = [];
    const probe: HealthProbe = {
      fetch: async (url) => {
        asked.push(url);
        const answer = answers.shift() ?? new Error('connect ECONNREFUSED 127.0.0.1:8090');
        if (answer instanceof Error) throw answer;
        return answer;
      },
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
      now: () => now,
    };
    return { probe, asked, slept };
  }

  it('asks /health on the kiosk’s origin', () => {
    expect(healthUrl('http://127.0.0.1:8090')).toBe('http://127.0.0.1:8090/health');
  });

  it('counts healthy and degraded as up, and nothing else', () => {
    expect(apiIsUp(200)).toBe(true);
    expect(apiIsUp(503)).toBe(true);
    for (const status of [204, 301, 404, 500, 502]) expect(apiIsUp(status), String(status)).toBe(false);
  });

  it('backs off quickly to one try every two seconds', () => {
    expect([0, 1, 2, 3, 4, 10].map(retryDelayMs)).toEqual([250, 500, 1000, 2000, 2000, 2000]);
  });

  it('waits through refused connections and foreign answers, reporting each', async () => {
    const { probe, asked, slept } = fakeProbe([
      new Error('connect ECONNREFUSED 127.0.0.1:8090'),
      404,
      new Error('aborted'),
      503,
    ]);
    const waiting: Array<[number, string]> = [];
    await waitForApi('http://127.0.0.1:8090/health', probe, {
      signal: new AbortController().signal,
      onWaiting: (elapsedMs, problem) => waiting.push([elapsedMs, problem]),
    });
    expect(asked).toHaveLength(4);
    expect(slept).toEqual([250, 500, 1000]);
    expect(waiting).toEqual([
      [0, 'connect ECONNREFUSED 127.0.0.1:8090'],
      [250, 'HTTP 404'],
      [750, 'aborted'],
    ]);
  });

  it('stops waiting when the kiosk quits', async () => {
    const { probe } = fakeProbe([]);
    const abort = new AbortController();
    let tries = 0;
    const waiting = waitForApi('http://127.0.0.1:8090/health', probe, {
      signal: abort.signal,
      onWaiting: () => {
        tries += 1;
        if (tries === 3) abort.abort();
      },
    });
    await expect(waiting).rejects.toThrow();
    expect(tries).toBe(3);
  });
});

describe('the starting page', () => {
  const decode = (url: string) => decodeURIComponent(url.slice('data:text/html;charset=utf-8,'.length));

  it('is a self-contained page that can run no script', () => {
    const url = startingPageUrl('Waiting for the appliance at http://127.0.0.1:8090/kiosk/…');
    expect(url.startsWith('data:text/html;charset=utf-8,')).toBe(true);
    const html = decode(url);
    expect(html).toContain("default-src 'none'; style-src 'unsafe-inline'");
    expect(html).toContain('Waiting for the appliance at http://127.0.0.1:8090/kiosk/…');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('#111418');
  });

  it('shows the detail as text, never as markup', () => {
    const html = decode(startingPageUrl(`</p><script>alert("x")</script><img src=x onerror='y'>&`));
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;/p&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('onerror=&#39;y&#39;&gt;&amp;');
  });

  it('says what the kiosk is waiting for, and what to do when waiting will not help', () => {
    const state = {
      elapsedMs: 0,
      apiUrl: 'http://127.0.0.1:8090/kiosk/',
      runtime: 'external' as const,
      settingsFile: '/home/store/.config/edge-kiosk/appliance.env',
    };
    expect(waitingDetail(state)).toBe('Waiting for the appliance at http://127.0.0.1:8090/kiosk/…');
    expect(waitingDetail({ ...state, elapsedMs: SLOW_START_MS })).toMatch(
      /^Still waiting .* restart the appliance/,
    );
    expect(waitingDetail({ ...state, runtime: 'running' })).toMatch(/^Waiting/);
    expect(waitingDetail({ ...state, runtime: 'missing-settings' })).toContain(state.settingsFile);
    expect(waitingDetail({ ...state, runtime: 'refused-settings' })).toMatch(
      /refused its settings in \/home/,
    );
    expect(waitingDetail({ ...state, runtime: 'no-node' })).toMatch(/Node\.js 20 is not installed/);
  });
});

describe('what the page may ask for', () => {
  const origin = 'http://127.0.0.1:8090';

  it('gets full screen from its own origin, and nothing else from anyone', () => {
    expect(isPermissionAllowed('fullscreen', 'http://127.0.0.1:8090/kiosk/', origin)).toBe(true);
    expect(isPermissionAllowed('fullscreen', origin, origin)).toBe(true);
    expect(isPermissionAllowed('fullscreen', 'http://127.0.0.1:8091/', origin)).toBe(false);
    expect(isPermissionAllowed('fullscreen', 'data:text/html,x', origin)).toBe(false);
    for (const permission of [
      'media',
      'display-capture',
      'geolocation',
      'notifications',
      'clipboard-read',
      'midi',
      'openExternal',
      'speaker-selection',
      'hid',
      'serial',
      'usb',
      'fileSystem',
      'unknown',
    ])
      expect(isPermissionAllowed(permission, 'http://127.0.0.1:8090/kiosk/', origin), permission).toBe(false);
  });
});

describe('the kiosk window’s life', () => {
  const KIOSK_URL = 'http://127.0.0.1:8090/kiosk/';

  function fakePage(name: string, events: string[]): KioskPage {
    return {
      loadURL: async (url) => {
        events.push(`${name} load ${url.startsWith('data:') ? 'starting page' : url}`);
      },
      reload: () => events.push(`${name} reload`),
      forcefullyCrashRenderer: () => events.push(`${name} kill`),
    };
  }

  function setUp() {
    const events: string[] = [];
    let tick: (() => void) | undefined;
    let now = 0;
    const timers: WatchdogTimers = {
      now: () => now,
      setInterval: (callback) => {
        tick = callback;
        return 1;
      },
      clearInterval: () => {
        tick = undefined;
      },
    };
    let page = fakePage('window1', events);
    let windows = 1;
    let apiUp: () => void = () => undefined;
    const waits: Array<(elapsedMs: number) => void> = [];
    const controller = createKioskController({
      kioskUrl: KIOSK_URL,
      page: () => page,
      recreateWindow: () => {
        windows += 1;
        page = fakePage(`window${windows}`, events);
        events.push(`new window${windows}`);
      },
      waitForApi: (_signal, onWaiting) =>
        new Promise<void>((resolve) => {
          waits.push(onWaiting);
          apiUp = resolve;
        }),
      describeWait: (elapsedMs) => (elapsedMs < 10_000 ? 'waiting' : 'still waiting'),
      sleep: async (ms) => {
        events.push(`pause ${ms}`);
      },
      log: silent,
      watchdog: { timers },
    });
    const advance = (ms: number) => {
      for (let t = 0; t < ms; t += 1000) {
        now += 1000;
        tick?.();
      }
    };
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    return { controller, events, waits, advance, settle, apiUp: () => apiUp() };
  }

  it('shows the starting page, then the UI once the API answers', async () => {
    const kiosk = setUp();
    const shown = kiosk.controller.start();
    await kiosk.settle();
    expect(kiosk.events).toEqual(['window1 load starting page']);
    kiosk.waits[0]!(2000);
    expect(kiosk.events).toHaveLength(1);
    kiosk.waits[0]!(12_000);
    expect(kiosk.events).toEqual(['window1 load starting page', 'window1 load starting page']);
    kiosk.apiUp();
    await shown;
    expect(kiosk.events.at(-1)).toBe(`window1 load ${KIOSK_URL}`);
    kiosk.controller.stop();
  });

  it('goes back to waiting when the UI fails to load, but not for aborted loads, frames or other pages', async () => {
    const kiosk = setUp();
    const started = kiosk.controller.start();
    await kiosk.settle();
    kiosk.apiUp();
    await started;
    kiosk.events.length = 0;
    kiosk.controller.loadFailed({ errorCode: -3, url: KIOSK_URL, isMainFrame: true });
    kiosk.controller.loadFailed({ errorCode: -102, url: KIOSK_URL, isMainFrame: false });
    kiosk.controller.loadFailed({ errorCode: -102, url: 'data:text/html,x', isMainFrame: true });
    await kiosk.settle();
    expect(kiosk.events).toEqual([]);
    kiosk.controller.loadFailed({ errorCode: -102, url: KIOSK_URL, isMainFrame: true });
    await kiosk.settle();
    expect(kiosk.events).toEqual(['window1 load starting page', 'pause 2000']);
    kiosk.apiUp();
    await kiosk.settle();
    expect(kiosk.events.at(-1)).toBe(`window1 load ${KIOSK_URL}`);
    kiosk.controller.stop();
  });

  it('waits once however many loads fail meanwhile', async () => {
    const kiosk = setUp();
    void kiosk.controller.start();
    await kiosk.settle();
    kiosk.controller.loadFailed({ errorCode: -102, url: KIOSK_URL, isMainFrame: true });
    kiosk.controller.loadFailed({ errorCode: -102, url: KIOSK_URL, isMainFrame: true });
    await kiosk.settle();
    expect(kiosk.waits).toHaveLength(1);
    kiosk.controller.stop();
  });

  it('kills and reloads a hung page, and does not count its own kill as a crash', async () => {
    const kiosk = setUp();
    void kiosk.controller.start();
    await kiosk.settle();
    kiosk.events.length = 0;
    kiosk.controller.unresponsive();
    kiosk.advance(WATCHDOG_TIMINGS.hangGraceMs);
    expect(kiosk.events).toEqual(['window1 kill', 'window1 reload']);
    kiosk.controller.renderProcessGone('killed');
    expect(kiosk.events).toEqual(['window1 kill', 'window1 reload']);
    kiosk.controller.heartbeat();
    kiosk.controller.renderProcessGone('crashed');
    expect(kiosk.events).toEqual(['window1 kill', 'window1 reload', 'window1 reload']);
    kiosk.controller.stop();
  });

  it('reloads a page that stops beating, and recreates the window when reloads do not help', async () => {
    const kiosk = setUp();
    void kiosk.controller.start();
    await kiosk.settle();
    kiosk.events.length = 0;
    for (let i = 0; i < WATCHDOG_TIMINGS.maxReloads; i += 1) kiosk.advance(WATCHDOG_TIMINGS.timeoutMs);
    expect(kiosk.events.filter((event) => event === 'window1 reload')).toHaveLength(
      WATCHDOG_TIMINGS.maxReloads,
    );
    kiosk.advance(WATCHDOG_TIMINGS.timeoutMs);
    expect(kiosk.events).toContain('new window2');
    // The wait under way shows its page in the new window at its next report.
    kiosk.waits[0]!(1000);
    expect(kiosk.events.at(-1)).toBe('window2 load starting page');
    kiosk.controller.stop();
  });

  it('beats keep a healthy page alone', async () => {
    const kiosk = setUp();
    void kiosk.controller.start();
    await kiosk.settle();
    kiosk.events.length = 0;
    for (let i = 0; i < 30; i += 1) {
      kiosk.advance(2000);
      kiosk.controller.heartbeat();
    }
    expect(kiosk.events).toEqual([]);
    kiosk.controller.stop();
  });
});
