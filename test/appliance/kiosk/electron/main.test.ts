/**
 * The compiled main process (dist/kiosk/app/main.cjs as build-shell.ts writes it) against a fake
 * Electron: Electron's binary cannot be downloaded here, so this is how its wiring is exercised —
 * the window it opens, the guards it sets, the wait for a real local API, and in an AppImage the
 * runtime it starts (a small stand-in script, run by the real Node.js) and the autostart entry.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runInThisContext } from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HEARTBEAT_CHANNEL } from '../../../../appliance/kiosk/electron/ipc.ts';
import { compileShell } from '../../../../scripts/kiosk/build-shell.ts';

interface GuardEvent {
  url: string;
  isMainFrame?: boolean;
  prevented: boolean;
  preventDefault(): void;
}

const guardEvent = (url: string, isMainFrame = true): GuardEvent => ({
  url,
  isMainFrame,
  prevented: false,
  preventDefault() {
    this.prevented = true;
  },
});

class FakeContents extends EventEmitter {
  loads: string[] = [];
  reloads = 0;
  kills = 0;
  devTools = false;
  zoomLimits: number[] = [];
  windowOpenHandler: ((details: { url: string }) => { action: string }) | undefined;
  async loadURL(url: string) {
    this.loads.push(url);
  }
  reload() {
    this.reloads += 1;
  }
  forcefullyCrashRenderer() {
    this.kills += 1;
  }
  setWindowOpenHandler(handler: FakeContents['windowOpenHandler']) {
    this.windowOpenHandler = handler;
  }
  async setVisualZoomLevelLimits(min: number, max: number) {
    this.zoomLimits = [min, max];
  }
  openDevTools() {
    this.devTools = true;
  }
}

type PermissionRequestHandler = (
  contents: unknown,
  permission: string,
  callback: (granted: boolean) => void,
  details: { requestingUrl: string },
) => void;

type PermissionCheckHandler = (contents: unknown, permission: string, origin: string) => boolean;

class FakeSession {
  request: PermissionRequestHandler | undefined;
  check: PermissionCheckHandler | undefined;
  device: (() => boolean) | undefined;
  events = new EventEmitter();
  setPermissionRequestHandler(handler: PermissionRequestHandler) {
    this.request = handler;
  }
  setPermissionCheckHandler(handler: PermissionCheckHandler) {
    this.check = handler;
  }
  setDevicePermissionHandler(handler: () => boolean) {
    this.device = handler;
  }
  on(event: string, listener: (...args: unknown[]) => void) {
    this.events.on(event, listener);
  }
}

function fakeElectron(paths: { appData: string }) {
  const app = Object.assign(new EventEmitter(), {
    quits: 0,
    exitCode: undefined as number | undefined,
    requestSingleInstanceLock: () => true,
    getPath: (name: string) => (name === 'userData' ? join(paths.appData, 'edge-kiosk') : paths.appData),
    getAppPath: () => '/opt/edge-kiosk/resources/app.asar',
    getVersion: () => '9.9.9',
    whenReady: () => Promise.resolve(),
    quit() {
      app.quits += 1;
      const event = { prevented: false, preventDefault: () => (event.prevented = true) };
      app.emit('before-quit', event);
      return event.prevented;
    },
    exit(code: number) {
      app.exitCode = code;
    },
  });
  const windows: FakeWindow[] = [];
  class FakeWindow extends EventEmitter {
    webContents = new FakeContents();
    destroyed = false;
    focused = 0;
    constructor(readonly options: Record<string, unknown> & { webPreferences: Record<string, unknown> }) {
      super();
      windows.push(this);
      app.emit('web-contents-created', {}, this.webContents);
    }
    show() {}
    isDestroyed() {
      return this.destroyed;
    }
    isMinimized() {
      return false;
    }
    restore() {}
    focus() {
      this.focused += 1;
    }
    destroy() {
      this.destroyed = true;
      this.emit('closed');
    }
  }
  const session = new FakeSession();
  const menus: unknown[] = [];
  const electron = {
    app,
    BrowserWindow: FakeWindow,
    ipcMain: new EventEmitter(),
    Menu: { setApplicationMenu: (menu: unknown) => menus.push(menu) },
    session: { defaultSession: session },
  };
  return { electron, app, windows, session, menus };
}

let compiledMain: string;
let buildDir: string;

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), 'kiosk-main-'));
  await compileShell(buildDir);
  compiledMain = join(buildDir, 'main.cjs');
});
afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

/** Runs main.cjs as Electron would, with the fake for `electron` and its own argv, env and resources. */
function startMain(options: {
  argv: string[];
  env: Record<string, string>;
  resourcesPath: string;
  appData: string;
}) {
  const fake = fakeElectron(options);
  const realRequire = createRequire(compiledMain);
  const shell = Object.create(process, {
    argv: { value: ['/opt/edge-kiosk/edge-kiosk', ...options.argv] },
    env: { value: options.env },
    resourcesPath: { value: options.resourcesPath },
  }) as NodeJS.Process;
  const wrapped = runInThisContext(
    `(function (exports, require, module, __filename, __dirname, process) {${readFileSync(compiledMain, 'utf8')}\n})`,
    { filename: compiledMain },
  ) as (...args: unknown[]) => void;
  const module = { exports: {} };
  const load = (id: string) => (id === 'electron' ? fake.electron : realRequire(id));
  wrapped(module.exports, load, module, compiledMain, dirname(compiledMain), shell);
  return fake;
}

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function listen(handler: (url: string) => number): Promise<Server> {
  const server = createServer((request, response) => {
    response.writeHead(handler(request.url ?? ''));
    response.end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

describe('the kiosk main process (deb: the runtime is a service)', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function started() {
    let healthy = false;
    const api = await listen((url) => (url === '/health' && healthy ? 200 : 404));
    cleanups.push(() => new Promise((resolve) => api.close(resolve)));
    const appData = mkdtempSync(join(tmpdir(), 'kiosk-home-'));
    cleanups.push(() => rmSync(appData, { recursive: true, force: true }));
    const kiosk = startMain({
      argv: [`--port=${portOf(api)}`],
      env: { LOG_LEVEL: 'silent' },
      resourcesPath: '/opt/edge-kiosk/resources',
      appData,
    });
    cleanups.push(() => kiosk.app.quit());
    const kioskUrl = `http://127.0.0.1:${portOf(api)}/kiosk/`;
    return { kiosk, kioskUrl, appData, serve: () => (healthy = true) };
  }

  it('opens one locked-down kiosk window on the starting page, then the UI once the API answers', async () => {
    const { kiosk, kioskUrl, serve } = await started();
    const window = await until(() => kiosk.windows[0], 'the window');
    expect(kiosk.menus).toEqual([null]);
    expect(window.options).toMatchObject({ kiosk: true, fullscreen: true, frame: false, show: false });
    expect(window.options.webPreferences).toMatchObject({
      preload: '/opt/edge-kiosk/resources/app.asar/preload.cjs',
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      devTools: false,
      additionalArguments: ['--kiosk-version=9.9.9'],
    });
    expect(window.webContents.zoomLimits).toEqual([1, 1]);
    expect(window.webContents.devTools).toBe(false);
    await until(() => window.webContents.loads[0], 'the starting page');
    expect(window.webContents.loads[0]).toMatch(/^data:text\/html/);
    expect(window.webContents.loads).not.toContain(kioskUrl);
    serve();
    await until(() => window.webContents.loads.includes(kioskUrl), 'the kiosk UI');
  });

  it('keeps every page on its origin: navigations, redirects, frames, new windows, webviews', async () => {
    const { kiosk, kioskUrl } = await started();
    const contents = (await until(() => kiosk.windows[0], 'the window')).webContents;
    const emit = (event: string, target: GuardEvent) => {
      contents.emit(event, target);
      return target.prevented;
    };
    expect(emit('will-navigate', guardEvent(`${kioskUrl}#/orders`))).toBe(false);
    expect(emit('will-navigate', guardEvent('https://evil.example/'))).toBe(true);
    expect(emit('will-navigate', guardEvent('file:///etc/passwd'))).toBe(true);
    expect(emit('will-redirect', guardEvent('http://127.0.0.1:1/'))).toBe(true);
    expect(emit('will-frame-navigate', guardEvent('https://evil.example/', false))).toBe(true);
    expect(emit('will-frame-navigate', guardEvent(kioskUrl, false))).toBe(false);
    const webview = guardEvent('');
    contents.emit('will-attach-webview', webview, {}, { src: kioskUrl });
    expect(webview.prevented).toBe(true);
    expect(contents.windowOpenHandler?.({ url: kioskUrl })).toEqual({ action: 'deny' });
  });

  it('refuses permissions but full screen, devices and downloads', async () => {
    const { kiosk, kioskUrl } = await started();
    await until(() => kiosk.windows[0], 'the window');
    const ask = (permission: string, requestingUrl: string) =>
      new Promise<boolean>((resolve) => kiosk.session.request!({}, permission, resolve, { requestingUrl }));
    expect(await ask('media', kioskUrl)).toBe(false);
    expect(await ask('notifications', kioskUrl)).toBe(false);
    expect(await ask('fullscreen', kioskUrl)).toBe(true);
    expect(await ask('fullscreen', 'https://evil.example/')).toBe(false);
    expect(kiosk.session.check!({}, 'media', new URL(kioskUrl).origin)).toBe(false);
    expect(kiosk.session.device!()).toBe(false);
    const download = guardEvent('');
    kiosk.session.events.emit('will-download', download);
    expect(download.prevented).toBe(true);
  });

  it('reloads a crashed page, shows a closed window again, and answers a second start by focusing', async () => {
    const { kiosk, kioskUrl, serve } = await started();
    serve();
    const first = await until(() => kiosk.windows[0], 'the window');
    await until(() => first.webContents.loads.includes(kioskUrl), 'the kiosk UI');
    first.webContents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
    expect(first.webContents.reloads).toBe(1);
    kiosk.app.emit('second-instance');
    expect(first.focused).toBe(1);
    // Beats from a page that is not the kiosk's are not the kiosk's.
    kiosk.electron.ipcMain.emit(HEARTBEAT_CHANNEL, { sender: new FakeContents() });
    first.destroy();
    const second = await until(() => kiosk.windows[1], 'a new window');
    await until(() => second.webContents.loads.includes(kioskUrl), 'the kiosk UI in the new window');
  });

  it('quits without a runtime to stop', async () => {
    const { kiosk } = await started();
    await until(() => kiosk.windows[0], 'the window');
    expect(kiosk.app.quit()).toBe(false);
  });
});

describe('the kiosk main process (AppImage: it starts the runtime)', () => {
  const dirs: string[] = [];
  const kiosks: Array<ReturnType<typeof startMain>> = [];
  afterEach(async () => {
    // Quitting stops the controller's timers and any runtime the kiosk started (then quits again).
    for (const kiosk of kiosks.splice(0)) {
      const quits = kiosk.app.quits;
      if (kiosk.app.quit()) await until(() => kiosk.app.quits > quits + 1, 'the runtime to stop');
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  /** Stands in for the bundle: reports what it was started with, answers /health, stops on SIGTERM. */
  const FAKE_RUNTIME = `
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
writeFileSync(process.env.REPORT, JSON.stringify({ execArgv: process.execArgv, env: process.env }));
const server = createServer((request, response) => { response.writeHead(request.url === '/health' ? 200 : 404); response.end(); });
server.listen(Number(process.env.APPLIANCE_PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

  async function freePort() {
    const server = await listen(() => 404);
    const port = portOf(server);
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  it('writes its autostart entry, starts the runtime with its settings, shows its UI and stops it on quit', async () => {
    const resources = tempDir('kiosk-resources-');
    mkdirSync(join(resources, 'appliance/dist'), { recursive: true });
    writeFileSync(join(resources, 'appliance/dist/appliance.mjs'), FAKE_RUNTIME);
    const appData = tempDir('kiosk-home-');
    const report = join(appData, 'runtime.json');
    const port = await freePort();
    mkdirSync(join(appData, 'edge-kiosk'));
    writeFileSync(
      join(appData, 'edge-kiosk/appliance.env'),
      `TENANT_ID=t\nLOCATION_ID=l\nAPPLIANCE_PORT=${port}\nREPORT=${report}\n`,
    );
    const kiosk = startMain({
      argv: [],
      env: {
        LOG_LEVEL: 'silent',
        PATH: process.env.PATH!,
        APPIMAGE: '/home/store/Edge Kiosk.AppImage',
        SECRET: 'x',
      },
      resourcesPath: resources,
      appData,
    });
    kiosks.push(kiosk);
    const window = await until(() => kiosk.windows[0], 'the window');
    const kioskUrl = `http://127.0.0.1:${port}/kiosk/`;
    await until(() => window.webContents.loads.includes(kioskUrl), 'the kiosk UI');

    expect(readFileSync(join(appData, 'autostart/edge-kiosk.desktop'), 'utf8')).toContain(
      'Exec="/home/store/Edge Kiosk.AppImage"',
    );
    const started = JSON.parse(readFileSync(report, 'utf8')) as {
      execArgv: string[];
      env: Record<string, string>;
    };
    expect(started.execArgv).toEqual(['--max-semi-space-size=4']);
    expect(started.env).toMatchObject({
      TENANT_ID: 't',
      LOCATION_ID: 'l',
      NODE_ENV: 'production',
      APPLIANCE_DATA_DIR: join(appData, 'edge-kiosk/appliance'),
    });
    expect(started.env.SECRET).toBeUndefined();

    expect(kiosk.app.quit()).toBe(true);
    await until(() => kiosk.app.quits === 2, 'the quit once the runtime stopped');
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });

  it('starts no runtime without settings, and says so on the starting page', async () => {
    const appData = tempDir('kiosk-home-');
    const port = await freePort();
    const kiosk = startMain({
      argv: [`--port=${port}`],
      env: { LOG_LEVEL: 'silent', APPIMAGE: '/home/store/edge-kiosk.AppImage' },
      resourcesPath: tempDir('kiosk-resources-'),
      appData,
    });
    kiosks.push(kiosk);
    const window = await until(() => kiosk.windows[0], 'the window');
    const page = await until(() => window.webContents.loads[0], 'the starting page');
    expect(decodeURIComponent(page)).toContain(`write them to ${join(appData, 'edge-kiosk/appliance.env')}`);
  });
});
