/**
 * The kiosk page's preload, in Electron's sandbox (contextIsolation on, no Node): it beats for the
 * main process's watchdog from the page's own event loop, so a page stuck in a loop stops beating,
 * and gives the page one small read-only object, `window.kiosk`, and nothing else.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { HEARTBEAT_CHANNEL, HEARTBEAT_EVERY_MS, type KioskApi, versionFromArgv } from './ipc.ts';

const api: KioskApi = Object.freeze({ version: versionFromArgv(process.argv) });

contextBridge.exposeInMainWorld('kiosk', api);

ipcRenderer.send(HEARTBEAT_CHANNEL);
setInterval(() => ipcRenderer.send(HEARTBEAT_CHANNEL), HEARTBEAT_EVERY_MS);
