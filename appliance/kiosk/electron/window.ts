/**
 * The kiosk window as the Electron main process makes it: one full-screen window on the
 * appliance's own display, no menus, the renderer without Node and isolated from the preload, and
 * dev tools only outside production. Plain data, so it is tested without Electron (whose binary
 * cannot be downloaded on our machines).
 */
import { versionArgument } from './ipc.ts';

export interface KioskWindowSettings {
  /** Production: kiosk mode, no dev tools. Development keeps a normal, inspectable window. */
  production: boolean;
  /** The preload script's absolute path (contextBridge only). */
  preload: string;
  /** The app's version, which the preload shows the page as `window.kiosk.version`. */
  appVersion: string;
}

/** The subset of Electron's BrowserWindowConstructorOptions the kiosk sets. */
export interface KioskWindowOptions {
  kiosk: boolean;
  fullscreen: boolean;
  frame: boolean;
  autoHideMenuBar: boolean;
  backgroundColor: string;
  show: boolean;
  webPreferences: {
    preload: string;
    contextIsolation: true;
    nodeIntegration: false;
    nodeIntegrationInWorker: false;
    sandbox: true;
    webSecurity: true;
    devTools: boolean;
    spellcheck: false;
    webviewTag: false;
    navigateOnDragDrop: false;
    backgroundThrottling: false;
    autoplayPolicy: 'no-user-gesture-required';
    additionalArguments: string[];
  };
}

export function kioskWindowOptions(settings: KioskWindowSettings): KioskWindowOptions {
  return {
    kiosk: settings.production,
    fullscreen: settings.production,
    frame: !settings.production,
    autoHideMenuBar: true,
    // Dark until the first paint, so the screen never flashes white at start or on a reload.
    backgroundColor: '#111418',
    show: false,
    webPreferences: {
      preload: settings.preload,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      sandbox: true,
      webSecurity: true,
      devTools: !settings.production,
      spellcheck: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      // The preload's heartbeat runs on the page's timers; throttled, a healthy page would look hung.
      backgroundThrottling: false,
      // Alerts play a sound whether or not anyone has touched the screen since the last reload.
      autoplayPolicy: 'no-user-gesture-required',
      additionalArguments: [versionArgument(settings.appVersion)],
    },
  };
}
