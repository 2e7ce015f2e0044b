/**
 * The kiosk's Electron main process: one full-screen window on the appliance's operator UI
 * (`http://127.0.0.1:<port>/kiosk/`), and nothing else. This file only wires Electron to the
 * modules beside it, which hold every decision and are tested without Electron (its binary cannot
 * be downloaded on our machines): the window's options, where it may navigate, which permissions
 * it gets, the wait for the local API, the renderer's watchdog, the autostart entry and, in an
 * AppImage, the appliance runtime it starts. Compiled to CommonJS by scripts/kiosk/build-shell.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { app, BrowserWindow, ipcMain, Menu, type Session, session, type WebContents } from 'electron';
import pino, { type Logger } from 'pino';
import { autostartAction, autostartFile, kioskAutostartEntry } from './autostart.ts';
import { loadShellConfig, type ShellConfig, ShellConfigError } from './config.ts';
import { createKioskController, type KioskController } from './controller.ts';
import { apiIsUp, type HealthProbe, healthUrl, waitForApi } from './health.ts';
import { HEARTBEAT_CHANNEL } from './ipc.ts';
import { isAllowedNavigation, kioskOrigin } from './navigation.ts';
import { isPermissionAllowed } from './permissions.ts';
import { createRuntimeSupervisor, parseEnvFile, runtimeCommand, runtimeEnvironment } from './runtime.ts';
import { type RuntimeStatus, waitingDetail } from './starting-page.ts';
import { kioskWindowOptions } from './window.ts';

const probe: HealthProbe = {
  fetch: async (url, signal) => {
    const response = await fetch(url, { signal });
    await response.body?.cancel();
    return response.status;
  },
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
  now: () => Date.now(),
};

function readSettings(file: string) {
  return existsSync(file) ? parseEnvFile(readFileSync(file, 'utf8')) : undefined;
}

/** Every page the app makes (the window's, any frame's) stays on the kiosk's origin. */
function lockDownContents(contents: WebContents, origin: string, log: Logger) {
  const guard = (event: { url: string; preventDefault(): void }, kind: string) => {
    if (isAllowedNavigation(event.url, origin)) return;
    event.preventDefault();
    log.warn({ url: event.url, kind }, 'kiosk navigation refused');
  };
  contents.on('will-navigate', (event) => guard(event, 'navigate'));
  // will-navigate covers main frames only.
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame) guard(event, 'frame');
  });
  contents.on('will-redirect', (event) => guard(event, 'redirect'));
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    log.warn('kiosk webview refused');
  });
  contents.setWindowOpenHandler(({ url }) => {
    log.warn({ url }, 'kiosk window.open refused');
    return { action: 'deny' };
  });
}

function lockDownSession(ses: Session, origin: string, log: Logger) {
  ses.setPermissionRequestHandler((_contents, permission, callback, details) => {
    const allowed = isPermissionAllowed(permission, details.requestingUrl, origin);
    if (!allowed) log.warn({ permission, url: details.requestingUrl }, 'kiosk permission refused');
    callback(allowed);
  });
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    isPermissionAllowed(permission, requestingOrigin, origin),
  );
  ses.setDevicePermissionHandler(() => false);
  ses.on('will-download', (event) => event.preventDefault());
}

/** An AppImage's first run (or its first run from a new file) adds it to the session's autostart. */
function ensureAutostart(appImage: string, log: Logger) {
  const file = autostartFile(app.getPath('appData'));
  const wanted = kioskAutostartEntry(appImage);
  try {
    const existing = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (autostartAction(existing, wanted) === 'keep') return;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, wanted);
    log.info({ file }, 'kiosk autostart entry written');
  } catch (error) {
    log.warn({ err: error, file }, 'kiosk autostart entry could not be written');
  }
}

interface Runtime {
  status(): RuntimeStatus;
  /** Present when the kiosk started a runtime, which must stop before the kiosk quits. */
  stop?(): Promise<void>;
}

/** The AppImage's runtime, unless its settings are missing or a runtime already answers. */
async function startRuntime(config: ShellConfig, origin: string, log: Logger): Promise<Runtime | undefined> {
  if (config.runtimeSettings === undefined) {
    log.warn('no appliance settings file: the kiosk starts no runtime and waits for one');
    return { status: () => 'missing-settings' };
  }
  const answering = await probe
    .fetch(healthUrl(origin), AbortSignal.timeout(1000))
    .then(apiIsUp, () => false);
  if (answering) {
    log.info('an appliance runtime already answers; the kiosk starts none');
    return undefined;
  }
  const { command, args } = runtimeCommand(process.resourcesPath);
  const userData = app.getPath('userData');
  const env = runtimeEnvironment(process.env, config.runtimeSettings, join(userData, 'appliance'));
  const supervisor = createRuntimeSupervisor({
    start: (handlers) => {
      const child = spawn(command, args, { env, cwd: userData, stdio: 'inherit' });
      child.once('exit', (code) => handlers.exit(code));
      child.on('error', handlers.error);
      return child;
    },
    log: log.child({ module: 'runtime' }),
  });
  supervisor.start();
  return supervisor;
}

/** The settings, or undefined (and the app exiting) when they are refused. */
function loadConfig(settingsFile: string): ShellConfig | undefined {
  try {
    return loadShellConfig({
      argv: process.argv,
      env: process.env,
      readRuntimeSettings: () => readSettings(settingsFile),
    });
  } catch (error) {
    if (!(error instanceof ShellConfigError)) throw error;
    pino({ name: 'kiosk' }).error({ err: error }, 'kiosk settings refused');
    app.exit(2);
    return undefined;
  }
}

/** A kiosk window whose page reports to the controller. */
function openWindow(config: ShellConfig, controller: KioskController) {
  const win = new BrowserWindow(
    kioskWindowOptions({
      production: config.production,
      preload: join(app.getAppPath(), 'preload.cjs'),
      appVersion: app.getVersion(),
    }),
  );
  const contents = win.webContents;
  win.once('ready-to-show', () => win.show());
  contents.on('render-process-gone', (_event, details) => controller.renderProcessGone(details.reason));
  contents.on('unresponsive', () => controller.unresponsive());
  contents.on('responsive', () => controller.responsive());
  contents.on('did-fail-load', (_event, errorCode, _description, url, isMainFrame) =>
    controller.loadFailed({ errorCode, url, isMainFrame }),
  );
  if (config.production) void contents.setVisualZoomLevelLimits(1, 1);
  else contents.openDevTools({ mode: 'detach' });
  return win;
}

function startKiosk(config: ShellConfig, settingsFile: string) {
  const log = pino({ name: 'kiosk', level: config.logLevel });
  const origin = kioskOrigin(config.kioskUrl);
  let window: BrowserWindow | undefined;
  let runtime: Runtime | undefined;
  let quitting = false;

  const controller = createKioskController({
    kioskUrl: config.kioskUrl,
    page: () => (window && !window.isDestroyed() ? window.webContents : undefined),
    recreateWindow: () => {
      const old = window;
      showWindow();
      old?.destroy();
    },
    waitForApi: (signal, onWaiting) => waitForApi(healthUrl(origin), probe, { signal, onWaiting }),
    describeWait: (elapsedMs) =>
      waitingDetail({
        elapsedMs,
        apiUrl: config.kioskUrl,
        runtime: runtime?.status() ?? 'external',
        settingsFile,
      }),
    sleep: (ms, signal) => sleep(ms, undefined, { signal }),
    log: log.child({ module: 'window' }),
  });

  function showWindow() {
    const win = openWindow(config, controller);
    window = win;
    win.on('closed', () => {
      if (window !== win) return;
      window = undefined;
      // A kiosk whose window was closed somehow shows it again; development just ends.
      if (!config.production || quitting) return;
      showWindow();
      void controller.showApp();
    });
  }

  app.on('web-contents-created', (_event, contents) => lockDownContents(contents, origin, log));
  app.on('second-instance', () => {
    if (window?.isMinimized()) window.restore();
    window?.focus();
  });
  ipcMain.on(HEARTBEAT_CHANNEL, (event) => {
    if (window && event.sender === window.webContents) controller.heartbeat();
  });
  app.on('window-all-closed', () => {
    if (!config.production || quitting) app.quit();
  });
  app.on('before-quit', (event) => {
    quitting = true;
    controller.stop();
    const stop = runtime?.stop;
    if (stop === undefined) return;
    // Once: the runtime stops, then the kiosk quits for good.
    runtime = undefined;
    event.preventDefault();
    void stop().finally(() => app.quit());
  });

  void app.whenReady().then(async () => {
    Menu.setApplicationMenu(null);
    lockDownSession(session.defaultSession, origin, log);
    if (config.appImage && config.production) ensureAutostart(config.appImage, log);
    if (config.spawnRuntime) runtime = await startRuntime(config, origin, log);
    showWindow();
    await controller.start();
  });
}

function main() {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  const settingsFile = join(app.getPath('userData'), 'appliance.env');
  const config = loadConfig(settingsFile);
  if (config) startKiosk(config, settingsFile);
}

main();
