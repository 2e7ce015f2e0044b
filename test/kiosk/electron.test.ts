import { describe, expect, it } from 'vitest';
import { isAllowedNavigation, kioskOrigin } from '../../appliance/kiosk/electron/navigation.ts';
import { createRendererWatchdog, type WatchdogTimers } from '../../appliance/kiosk/electron/watchdog.ts';
import { kioskWindowOptions } from '../../appliance/kiosk/electron/window.ts';

describe('the kiosk window', () => {
  it('is a locked-down full-screen kiosk in production', () => {
    const options = kioskWindowOptions({ production: true, preload: '/opt/kiosk/preload.cjs' });
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
    });
  });

  it('keeps a normal window with dev tools in development, still without Node in the page', () => {
    const options = kioskWindowOptions({ production: false, preload: '/p.cjs' });
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
