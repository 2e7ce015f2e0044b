import { describe, expect, it } from 'vitest';
import { HEARTBEAT_EVERY_MS, versionFromArgv } from '../../../../appliance/kiosk/electron/ipc.ts';
import { isAllowedNavigation, kioskOrigin } from '../../../../appliance/kiosk/electron/navigation.ts';
import {
  createRendererWatchdog,
  WATCHDOG_TIMINGS,
  type WatchdogTimers,
} from '../../../../appliance/kiosk/electron/watchdog.ts';
import { kioskWindowOptions } from '../../../../appliance/kiosk/electron/window.ts';

describe('the kiosk window', () => {
  it('is a locked-down full-screen kiosk in production', () => {
    const options = kioskWindowOptions({
      production: true,
      preload: '/opt/kiosk/preload.cjs',
      appVersion: '1.2.3',
    });
    expect(options).toMatchObject({ kiosk: true, fullscreen: true, frame: false, autoHideMenuBar: true });
    expect(options.webPreferences).toEqual({
      preload: '/opt/kiosk/preload.cjs',
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      sandbox: true,
      webSecurity: true,
      devTools: false,
      spellcheck: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      backgroundThrottling: false,
      autoplayPolicy: 'no-user-gesture-required',
      additionalArguments: ['--kiosk-version=1.2.3'],
    });
  });

  it("hands the app's version to the preload on its command line", () => {
    const options = kioskWindowOptions({ production: true, preload: '/p.cjs', appVersion: '0.4.0' });
    expect(
      versionFromArgv(['/opt/edge-kiosk/edge-kiosk', ...options.webPreferences.additionalArguments]),
    ).toBe('0.4.0');
    expect(versionFromArgv(['electron'])).toBe('unknown');
  });

  it('keeps a normal window with dev tools in development, still without Node in the page', () => {
    const options = kioskWindowOptions({ production: false, preload: '/p.cjs', appVersion: '0.0.0' });
    expect(options).toMatchObject({ kiosk: false, fullscreen: false, frame: true });
    expect(options.webPreferences).toMatchObject({
      devTools: true,
      nodeIntegration: false,
      contextIsolation: true,
    });
  });
});

describe('where the kiosk may navigate', () => {
  const origin = kioskOrigin('http://127.0.0.1:8090/kiosk/');

  it('starts only on this machine', () => {
    expect(origin).toBe('http://127.0.0.1:8090');
    expect(kioskOrigin('http://localhost:8090/')).toBe('http://localhost:8090');
    expect(() => kioskOrigin('http://example.com/')).toThrow(/not this machine/);
    expect(() => kioskOrigin('file:///etc/passwd')).toThrow(/http/);
  });

  it('allows its own pages and refuses everything else', () => {
    expect(isAllowedNavigation('http://127.0.0.1:8090/kiosk/#/drive-thru', origin)).toBe(true);
    for (const target of [
      'http://127.0.0.1:8091/',
      'http://localhost:8090/',
      'https://127.0.0.1:8090/',
      'http://evil.example/',
      'file:///etc/passwd',
      'data:text/html,<script>alert(1)</script>',
      'javascript:alert(1)',
      'not a url',
    ])
      expect(isAllowedNavigation(target, origin), target).toBe(false);
  });

  it('refuses the tricky ones: user info, look-alike hosts, other schemes on the same origin', () => {
    for (const target of [
      'http://127.0.0.1:8090@evil.example/',
      'http://kiosk@127.0.0.1:8090/kiosk/',
      'http://user:secret@127.0.0.1:8090/kiosk/',
      'http://127.0.0.1.evil.example:8090/',
      'http://127.0.0.1:8090.evil.example/',
      'http://[::1]:8090/kiosk/',
      'ws://127.0.0.1:8090/',
      'blob:http://127.0.0.1:8090/0b9f5f6e-5b8a-4c9e-9a53-7f1f2e7a1c11',
      'view-source:http://127.0.0.1:8090/kiosk/',
      'file://127.0.0.1:8090/kiosk/',
      'JAVASCRIPT:alert(1)',
      ' javascript:alert(1)',
      'about:blank',
      'chrome://gpu',
      'devtools://devtools/bundled/inspector.html',
      '',
    ])
      expect(isAllowedNavigation(target, origin), target).toBe(false);
  });

  it('takes the URL parser’s spelling of its own origin', () => {
    for (const target of [
      'HTTP://127.0.0.1:8090/kiosk/',
      'http://127.1:8090/kiosk/',
      'http://0x7f.0.0.1:8090/kiosk/',
      'http://127.0.0.1:8090/kiosk/../kiosk/#/orders?x=1',
      'http://127.0.0.1:8090\\kiosk\\',
    ])
      expect(isAllowedNavigation(target, origin), target).toBe(true);
  });

  it('serves an IPv6 loopback start URL as its own origin, and only that', () => {
    const v6 = kioskOrigin('http://[::1]:8090/kiosk/');
    expect(v6).toBe('http://[::1]:8090');
    expect(kioskOrigin('http://[0:0:0:0:0:0:0:1]:8090/')).toBe('http://[::1]:8090');
    expect(isAllowedNavigation('http://[::1]:8090/kiosk/', v6)).toBe(true);
    expect(isAllowedNavigation('http://[::1]:8091/kiosk/', v6)).toBe(false);
    expect(isAllowedNavigation('http://127.0.0.1:8090/kiosk/', v6)).toBe(false);
    expect(() => kioskOrigin('http://[::2]:8090/')).toThrow(/not this machine/);
    expect(() => kioskOrigin('http://0.0.0.0:8090/')).toThrow(/not this machine/);
  });
});

describe('the renderer watchdog', () => {
  function fakeTimers() {
    let now = 0;
    let tick: (() => void) | undefined;
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
    const advance = (ms: number) => {
      for (let t = 0; t < ms; t += 1000) {
        now += 1000;
        tick?.();
      }
    };
    return { timers, advance, stopped: () => tick === undefined };
  }

  it('reloads a renderer that stops beating, and recreates the window when reloads do not help', () => {
    const clock = fakeTimers();
    const remedies: string[] = [];
    const watchdog = createRendererWatchdog({
      timeoutMs: 10_000,
      checkEveryMs: 1000,
      reload: () => remedies.push('reload'),
      recreate: () => remedies.push('recreate'),
      maxReloads: 2,
      windowMs: 120_000,
      timers: clock.timers,
    });
    watchdog.start();
    for (let i = 0; i < 5; i += 1) {
      clock.advance(5000);
      watchdog.beat();
    }
    expect(remedies).toEqual([]);
    clock.advance(10_000);
    expect(remedies).toEqual(['reload']);
    clock.advance(10_000);
    expect(remedies).toEqual(['reload', 'reload']);
    clock.advance(10_000);
    expect(remedies).toEqual(['reload', 'reload', 'recreate']);
    watchdog.stop();
    expect(clock.stopped()).toBe(true);
  });

  it('remedies a crashed renderer at once', () => {
    const clock = fakeTimers();
    const remedies: string[] = [];
    const watchdog = createRendererWatchdog({
      timeoutMs: 10_000,
      checkEveryMs: 1000,
      reload: () => remedies.push('reload'),
      recreate: () => remedies.push('recreate'),
      timers: clock.timers,
    });
    watchdog.start();
    expect(watchdog.crashed()).toBe('reloaded');
    expect(remedies).toEqual(['reload']);
  });
});

describe('the watchdog and Electron’s hang detection', () => {
  function fakeClock() {
    let now = 0;
    let tick: (() => void) | undefined;
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
    const advance = (ms: number) => {
      for (let t = 0; t < ms; t += 1000) {
        now += 1000;
        tick?.();
      }
    };
    return { timers, advance };
  }

  function watched(clock: ReturnType<typeof fakeClock>) {
    const remedies: string[] = [];
    const watchdog = createRendererWatchdog({
      ...WATCHDOG_TIMINGS,
      reload: (cause) => remedies.push(`reload:${cause}`),
      recreate: (cause) => remedies.push(`recreate:${cause}`),
      timers: clock.timers,
    });
    watchdog.start();
    return { watchdog, remedies };
  }

  it('uses timings that tolerate late beats but not a hang', () => {
    expect(WATCHDOG_TIMINGS.timeoutMs).toBeGreaterThanOrEqual(5 * HEARTBEAT_EVERY_MS);
    expect(WATCHDOG_TIMINGS.checkEveryMs).toBeLessThanOrEqual(HEARTBEAT_EVERY_MS);
    expect(WATCHDOG_TIMINGS.hangGraceMs).toBeLessThan(WATCHDOG_TIMINGS.timeoutMs);
    // Three reloads fit in the window, so a page that keeps hanging gets a new window.
    expect(WATCHDOG_TIMINGS.maxReloads * WATCHDOG_TIMINGS.timeoutMs).toBeLessThan(WATCHDOG_TIMINGS.windowMs);
  });

  it('reloads a silent page after the timeout, as a hang', () => {
    const clock = fakeClock();
    const { remedies } = watched(clock);
    clock.advance(WATCHDOG_TIMINGS.timeoutMs - 1000);
    expect(remedies).toEqual([]);
    clock.advance(1000);
    expect(remedies).toEqual(['reload:hung']);
  });

  it('remedies an unresponsive page after the grace, sooner than the heartbeat would', () => {
    const clock = fakeClock();
    const { watchdog, remedies } = watched(clock);
    watchdog.unresponsive();
    clock.advance(WATCHDOG_TIMINGS.hangGraceMs - 1000);
    expect(remedies).toEqual([]);
    clock.advance(1000);
    expect(remedies).toEqual(['reload:hung']);
  });

  it('leaves a page alone that answers again within the grace', () => {
    const clock = fakeClock();
    const { watchdog, remedies } = watched(clock);
    watchdog.unresponsive();
    clock.advance(WATCHDOG_TIMINGS.hangGraceMs - 1000);
    watchdog.responsive();
    clock.advance(WATCHDOG_TIMINGS.timeoutMs - 1000);
    expect(remedies).toEqual([]);
  });

  it('names a crash as such, so the page is not killed twice', () => {
    const clock = fakeClock();
    const { watchdog, remedies } = watched(clock);
    watchdog.crashed();
    expect(remedies).toEqual(['reload:crashed']);
  });
});
