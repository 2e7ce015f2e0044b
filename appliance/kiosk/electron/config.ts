/**
 * The kiosk shell's settings, read once at start from its command line and environment (main.ts
 * passes them in; nothing else here reads process.env). Flags: `--dev` (a normal window with dev
 * tools), `--port=<n>` (the local API's port), `--no-runtime` (an AppImage that does not start the
 * appliance runtime itself). Chromium's own switches share the command line, so other arguments
 * are left alone rather than refused. From the environment: APPLIANCE_PORT (as the runtime's),
 * LOG_LEVEL, and APPIMAGE (set by the AppImage when it runs from one).
 */

import { type Settings, settingsReader } from '../../../shared/config/settings.ts';

export class ShellConfigError extends Error {
  override name = 'ShellConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type ShellLogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_PORT = 8090;

/** The environment the shell reads (its command-line flags are in the header above). */
export const SHELL_SETTINGS = {
  port: {
    name: 'APPLIANCE_PORT',
    type: 'integer',
    default: DEFAULT_PORT,
    min: 1,
    max: 65535,
    description:
      "the local API's port, where the operator UI is loaded from; `--port=<n>` and the runtime settings' `APPLIANCE_PORT` take precedence",
  },
  logLevel: {
    name: 'LOG_LEVEL',
    type: 'enum',
    values: LOG_LEVELS,
    default: 'info',
    description: 'the least severe level the shell logs',
  },
  appImage: {
    name: 'APPIMAGE',
    type: 'text',
    default: undefined,
    format: 'a file',
    description:
      'set by the AppImage runtime to the file it mounted: the shell then starts the appliance runtime itself (unless `--no-runtime`)',
  },
} as const satisfies Settings;

const read = settingsReader((message) => new ShellConfigError(message));

export interface ShellConfig {
  production: boolean;
  logLevel: ShellLogLevel;
  port: number;
  /** The operator UI (`http://127.0.0.1:<port>/kiosk/`). */
  kioskUrl: string;
  /** The AppImage file the kiosk runs from, when it runs from one. */
  appImage: string | undefined;
  /** Whether this process starts the appliance runtime (AppImage only; the deb runs it under systemd). */
  spawnRuntime: boolean;
  /** The settings for the runtime it starts; undefined when it starts none or has no settings file. */
  runtimeSettings: Readonly<Record<string, string>> | undefined;
}

export interface ShellConfigInput {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Reads the settings file of the runtime an AppImage starts (undefined when there is none); asked
   * only when the kiosk starts the runtime. Its APPLIANCE_PORT is then the kiosk's too.
   */
  readRuntimeSettings(): Readonly<Record<string, string>> | undefined;
}

function flagValue(argv: readonly string[], name: string): string | undefined {
  const prefix = `--${name}=`;
  return argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
}

function parsePort(raw: string, source: string): number {
  const { min, max } = SHELL_SETTINGS.port;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port >= min && port <= max))
    throw new ShellConfigError(`${source} must be a port from ${min} to ${max}, got "${raw}"`);
  return port;
}

function portOf(input: ShellConfigInput, runtimeSettings: ShellConfig['runtimeSettings']): number {
  const fromFlag = flagValue(input.argv, 'port');
  if (fromFlag !== undefined) return parsePort(fromFlag, '--port');
  const fromSettings = runtimeSettings?.APPLIANCE_PORT;
  if (fromSettings) return parsePort(fromSettings, "the runtime settings' APPLIANCE_PORT");
  const fromEnv = input.env[SHELL_SETTINGS.port.name];
  if (fromEnv) return parsePort(fromEnv, SHELL_SETTINGS.port.name);
  return DEFAULT_PORT;
}

export function loadShellConfig(input: ShellConfigInput): ShellConfig {
  // The AppImage runtime sets APPIMAGE to the file it mounted.
  const appImage = read(input.env, SHELL_SETTINGS.appImage);
  const spawnRuntime = appImage !== undefined && !input.argv.includes('--no-runtime');
  const runtimeSettings = spawnRuntime ? input.readRuntimeSettings() : undefined;
  const port = portOf(input, runtimeSettings);
  return {
    production: !input.argv.includes('--dev'),
    logLevel: read(input.env, SHELL_SETTINGS.logLevel),
    port,
    kioskUrl: `http://127.0.0.1:${port}/kiosk/`,
    appImage,
    spawnRuntime,
    runtimeSettings,
  };
}
