import { describe, expect, it } from 'vitest';
import {
  AUTOSTART_NAME,
  autostartAction,
  autostartDesktopEntry,
  autostartFile,
  desktopExec,
  kioskAutostartEntry,
} from '../../../../appliance/kiosk/electron/autostart.ts';

describe('the autostart entry', () => {
  it('starts the AppImage it was written from', () => {
    expect(kioskAutostartEntry('/home/store/Applications/edge-kiosk-0.1.0.AppImage')).toBe(
      [
        '[Desktop Entry]',
        'Type=Application',
        'Name=Edge Kiosk',
        "Comment=The store appliance's operator screen",
        'Exec=/home/store/Applications/edge-kiosk-0.1.0.AppImage',
        'Terminal=false',
        'X-GNOME-Autostart-enabled=true',
        '',
      ].join('\n'),
    );
  });

  it('lives in the user’s autostart folder', () => {
    expect(AUTOSTART_NAME).toBe('edge-kiosk');
    expect(autostartFile('/home/store/.config')).toBe('/home/store/.config/autostart/edge-kiosk.desktop');
  });

  it('quotes paths as the Exec key requires, escapes once more for the file', () => {
    expect(desktopExec(['/opt/a b/kiosk', '--port=8090'])).toBe('"/opt/a b/kiosk" --port=8090');
    expect(desktopExec(['/home/x/$HOME.AppImage'])).toBe('"/home/x/\\\\$HOME.AppImage"');
    expect(desktopExec(['/home/x/say "hi".AppImage'])).toBe('"/home/x/say \\\\"hi\\\\".AppImage"');
    expect(desktopExec(['/home/x/back\\slash'])).toBe('"/home/x/back\\\\\\\\slash"');
    expect(desktopExec(['/home/x/`id`;rm'])).toBe('"/home/x/\\\\`id\\\\`;rm"');
    expect(desktopExec(["/home/o'brien/k"])).toBe('"/home/o\'brien/k"');
    expect(desktopExec(['/home/x/100%.AppImage'])).toBe('/home/x/100%%.AppImage');
    expect(desktopExec(['/home/x/50% off'])).toBe('"/home/x/50%% off"');
    expect(desktopExec(['~/k', 'a|b', 'a&b', 'a>b', '(x)', '*', '?', '#'])).toBe(
      '"~/k" "a|b" "a&b" "a>b" "(x)" "*" "?" "#"',
    );
    expect(desktopExec(['/opt/k', ''])).toBe('/opt/k ""');
  });

  it('refuses a path no entry can hold', () => {
    expect(() => desktopExec(['/home/x/line\nbreak'])).toThrow(/control character/);
    expect(() =>
      autostartDesktopEntry({ name: 'Edge\nExec=/bin/sh', comment: 'x', exec: ['/opt/k'] }),
    ).toThrow(/Name must be one line/);
  });

  it('is written when missing or pointing elsewhere, and left alone when switched off', () => {
    const wanted = kioskAutostartEntry('/home/store/edge-kiosk-0.2.0.AppImage');
    expect(autostartAction(undefined, wanted)).toBe('write');
    expect(autostartAction(wanted, wanted)).toBe('keep');
    expect(autostartAction(kioskAutostartEntry('/home/store/edge-kiosk-0.1.0.AppImage'), wanted)).toBe(
      'write',
    );
    expect(autostartAction(`${kioskAutostartEntry('/old.AppImage')}Hidden=true\n`, wanted)).toBe('keep');
    const off = kioskAutostartEntry('/old.AppImage').replace(
      'X-GNOME-Autostart-enabled=true',
      'X-GNOME-Autostart-enabled=false',
    );
    expect(autostartAction(off, wanted)).toBe('keep');
  });
});
