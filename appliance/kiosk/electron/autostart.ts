/**
 * Starting the kiosk with the store's desktop session. The deb installs a system-wide XDG
 * autostart entry (`/etc/xdg/autostart/`, see appliance/kiosk/packaging/); an AppImage cannot, so
 * its main process writes the user's own entry (`~/.config/autostart/`) on first run, pointing at
 * the AppImage file it was started from. The entry's text comes from here in both cases (a test
 * holds the deb's file to it).
 */
import { join } from 'node:path';

export const AUTOSTART_NAME = 'edge-kiosk';

export interface DesktopEntry {
  name: string;
  comment: string;
  /** The program and its arguments, unquoted. */
  exec: readonly string[];
}

// Characters that oblige an Exec argument to be quoted (Desktop Entry Specification, "The Exec key").
const RESERVED = /[\s"'\\><~|&;$*?#()`]/;

/** One Exec argument: quoted when needed, with `"`, `` ` ``, `$` and `\` escaped inside the quotes. */
function execArgument(argument: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(argument))
    throw new Error(
      `an autostart entry cannot run ${JSON.stringify(argument)}: it holds a control character`,
    );
  const percent = argument.replaceAll('%', '%%');
  if (!RESERVED.test(percent) && percent !== '') return percent;
  return `"${percent.replace(/["`$\\]/g, (char) => `\\${char}`)}"`;
}

/**
 * The Exec key's value as written in the file: the arguments quoted as the Exec rules say, then
 * every backslash doubled, because the file's string values have escapes of their own.
 */
export function desktopExec(exec: readonly string[]): string {
  return exec.map(execArgument).join(' ').replaceAll('\\', '\\\\');
}

function plainValue(key: string, value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new Error(`an autostart entry's ${key} must be one line`);
  return value.replaceAll('\\', '\\\\');
}

export function autostartDesktopEntry(entry: DesktopEntry): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${plainValue('Name', entry.name)}`,
    `Comment=${plainValue('Comment', entry.comment)}`,
    `Exec=${desktopExec(entry.exec)}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** The kiosk's own entry, for the program at `executable`. */
export function kioskAutostartEntry(executable: string): string {
  return autostartDesktopEntry({
    name: 'Edge Kiosk',
    comment: "The store appliance's operator screen",
    exec: [executable],
  });
}

/** `$XDG_CONFIG_HOME/autostart/<name>.desktop` (Electron's appData path is $XDG_CONFIG_HOME or ~/.config). */
export function autostartFile(configHome: string, name = AUTOSTART_NAME): string {
  return join(configHome, 'autostart', `${name}.desktop`);
}

/**
 * Whether to write the entry: when there is none, or when ours points elsewhere (a newer AppImage
 * in another file). An entry someone switched off (`Hidden=true`, or GNOME's
 * `X-GNOME-Autostart-enabled=false`) is left as it is.
 */
export function autostartAction(existing: string | undefined, wanted: string): 'write' | 'keep' {
  if (existing === undefined) return 'write';
  if (existing === wanted) return 'keep';
  if (/^Hidden\s*=\s*true\s*$/m.test(existing)) return 'keep';
  if (/^X-GNOME-Autostart-enabled\s*=\s*false\s*$/m.test(existing)) return 'keep';
  return 'write';
}
