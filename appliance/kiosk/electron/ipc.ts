/**
 * What passes between the kiosk's main process and its preload: one heartbeat channel and the
 * app's version, handed to the sandboxed preload as a command-line argument (it cannot read files
 * or ask synchronously without blocking the page).
 */

/** `window.kiosk` in the page (the preload's only export to it). */
export interface KioskApi {
  /** The kiosk app's version (the package's). */
  readonly version: string;
}

export const HEARTBEAT_CHANNEL = 'kiosk:heartbeat';

/** How often the preload beats; the watchdog's timeout is several of these. */
export const HEARTBEAT_EVERY_MS = 2000;

const VERSION_ARGUMENT = '--kiosk-version=';

export function versionArgument(version: string): string {
  return `${VERSION_ARGUMENT}${version}`;
}

export function versionFromArgv(argv: readonly string[]): string {
  const argument = argv.find((arg) => arg.startsWith(VERSION_ARGUMENT));
  return argument?.slice(VERSION_ARGUMENT.length) || 'unknown';
}
