import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger } from 'builder-util';
import type { Configuration } from 'electron-builder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kioskAutostartEntry } from '../../../../appliance/kiosk/electron/autostart.ts';
import { RUNTIME_NODE_FLAGS } from '../../../../appliance/kiosk/electron/runtime.ts';
import { ENTRIES } from '../../../../scripts/build.ts';
import {
  compileShell,
  foldersToCopy,
  isForeignBinary,
  missingInputs,
  PACKAGED_INPUTS,
  RUNTIME_DIR,
  RUNTIME_NODE_MAJOR,
  SHELL_APP_DIR,
  SHELL_ENTRIES,
  SHELL_FILES,
  shellPackageJson,
} from '../../../../scripts/kiosk/build-shell.ts';

const ROOT = join(import.meta.dirname, '../../../..');
const PACKAGING = 'appliance/kiosk/packaging';
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface FileSet {
  from: string;
  to: string;
  filter?: string[];
}

interface BuilderYml {
  appId: string;
  productName: string;
  executableName: string;
  directories: { app: string; output: string };
  files: string[];
  beforeBuild: string;
  extraResources: FileSet[];
  linux: { target: Array<{ target: string; arch: string[] }>; category: string };
  deb: { depends: string[]; afterInstall: string; afterRemove: string };
}

const yml = parse(read('electron-builder.yml')) as BuilderYml;
const resource = (to: string) => {
  const found = yml.extraResources.find((set) => set.to === to);
  if (!found) throw new Error(`no extraResources entry to ${to}`);
  return found;
};
const INSTALL_DIR = `/opt/${yml.productName}`;

describe('electron-builder.yml', () => {
  it('is a configuration electron-builder itself accepts', async () => {
    const config: Configuration = await getConfig(ROOT, 'electron-builder.yml', null);
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    expect(config.appId).toBe(yml.appId);
  });

  it('names the app and builds an AppImage and a deb for x64', () => {
    expect(yml.appId).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
    expect(yml).toMatchObject({ productName: 'edge-kiosk', executableName: 'edge-kiosk' });
    expect(yml.linux.target).toEqual([
      { target: 'AppImage', arch: ['x64'] },
      { target: 'deb', arch: ['x64'] },
    ]);
    expect(yml.linux.category).toBe('Office');
  });

  it('packs the shell that build-shell.ts writes, and none of the repository’s node_modules', async () => {
    expect(yml.directories.app).toBe(SHELL_APP_DIR);
    expect(yml.files).toEqual([...SHELL_FILES]);
    for (const entry of Object.values(SHELL_ENTRIES)) expect(existsSync(join(ROOT, entry)), entry).toBe(true);
    expect(yml.beforeBuild).toBe(`./${PACKAGING}/before-build.cjs`);
    const hook = createRequire(import.meta.url)(join(ROOT, yml.beforeBuild)) as () => Promise<boolean>;
    // false: electron-builder neither rebuilds nor copies node_modules into the shell.
    await expect(hook()).resolves.toBe(false);
  });

  it('carries the runtime bundle that npm run build writes from sources in this repository', () => {
    const dist = resource('appliance/dist');
    expect(dist.from).toBe('dist');
    for (const name of ['appliance', 'vision-detect-worker'] as const) {
      expect(dist.filter).toContain(`${name}.mjs`);
      expect(existsSync(join(ROOT, ENTRIES[name])), ENTRIES[name]).toBe(true);
    }
    expect(PACKAGED_INPUTS).toEqual(
      expect.arrayContaining(dist.filter!.filter((f) => f.endsWith('.mjs')).map((f) => `dist/${f}`)),
    );
  });

  it('carries its node_modules and package.json as staged, its models and its web UI where the bundle looks', () => {
    expect(resource('appliance')).toEqual({ from: RUNTIME_DIR, to: 'appliance', filter: ['package.json'] });
    expect(resource('appliance/node_modules').from).toBe(`${RUNTIME_DIR}/node_modules`);
    // appliance/config.ts finds both one level above the bundle, as above appliance/ in the repository.
    expect(resource('appliance/models').from).toBe('models');
    expect(existsSync(join(ROOT, 'models/vehicles.onnx'))).toBe(true);
    expect(read('appliance/config.ts')).toContain("new URL('../models', import.meta.url)");
    const web = resource('appliance/appliance/kiosk/web/dist');
    expect(web.from).toBe('appliance/kiosk/web/dist');
    expect(PACKAGED_INPUTS).toContain(web.from);
  });

  it('carries the packaging files the install scripts use, and they exist', () => {
    const packaging = resource('packaging');
    expect(packaging.from).toBe(PACKAGING);
    for (const file of packaging.filter!) expect(existsSync(join(ROOT, PACKAGING, file)), file).toBe(true);
    const postinst = read(yml.deb.afterInstall);
    for (const file of packaging.filter!) expect(postinst, file).toContain(`$PACKAGING/${file}`);
    expect(postinst).toContain('PACKAGING="$APP_DIR/resources/packaging"');
  });

  it('has the deb depend on the Node.js major the runtime’s native modules are built for', () => {
    expect(yml.deb.depends).toEqual(
      expect.arrayContaining([
        `nodejs (>= ${RUNTIME_NODE_MAJOR}.19)`,
        `nodejs (<< ${RUNTIME_NODE_MAJOR + 1})`,
      ]),
    );
    // A depends list replaces electron-builder's defaults: Electron's own libraries must stay.
    expect(yml.deb.depends).toEqual(expect.arrayContaining(['libgtk-3-0', 'libnss3', 'libxss1', 'libxtst6']));
    expect(yml.deb.depends.join(' ')).not.toMatch(/ffmpeg/);
  });
});

describe('the deb’s service and autostart', () => {
  const unit = read(`${PACKAGING}/edge-appliance.service`);

  it('runs the packaged bundle under Node with the production flags, restarting it but for refused settings', () => {
    expect(unit).toContain(
      `ExecStart=/usr/bin/node ${RUNTIME_NODE_FLAGS.join(' ')} ${INSTALL_DIR}/resources/appliance/dist/appliance.mjs`,
    );
    expect(unit).toContain('EnvironmentFile=/etc/edge-appliance/appliance.env');
    expect(unit).toContain('Environment=APPLIANCE_DATA_DIR=/var/lib/edge-appliance');
    expect(unit).toContain('StateDirectory=edge-appliance');
    expect(unit).toContain('Restart=on-failure');
    expect(unit).toContain('RestartPreventExitStatus=2');
    expect(unit).toContain('WantedBy=multi-user.target');
    expect(unit.indexOf('\nEnvironment=APPLIANCE_DATA_DIR')).toBeLessThan(unit.indexOf('\nEnvironmentFile='));
  });

  it('ships a settings template that names what the runtime requires', () => {
    const settings = read(`${PACKAGING}/appliance.env`);
    expect(settings).toMatch(/^TENANT_ID=$/m);
    expect(settings).toMatch(/^LOCATION_ID=$/m);
  });

  it('autostarts the installed kiosk with the entry the AppImage would write', () => {
    expect(read(`${PACKAGING}/edge-kiosk-autostart.desktop`)).toBe(
      kioskAutostartEntry(`${INSTALL_DIR}/${yml.executableName}`),
    );
  });
});

describe('the deb’s install scripts', () => {
  // electron-builder replaces ${name} with these, and stops at any other.
  const MACROS: Record<string, string> = {
    executable: yml.executableName,
    sanitizedProductName: yml.productName,
  };
  const expand = (text: string) =>
    text.replace(/\${([a-zA-Z]+)}/g, (_match, name: string) => {
      if (!(name in MACROS)) throw new Error(`macro ${name} is not defined`);
      return MACROS[name]!;
    });

  for (const key of ['afterInstall', 'afterRemove'] as const) {
    it(`${key} uses only electron-builder's macros and is valid bash`, () => {
      const script = expand(read(yml.deb[key]));
      expect(script.startsWith('#!/bin/bash\n')).toBe(true);
      const check = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
      expect(check.stderr).toBe('');
      expect(check.status).toBe(0);
    });
  }

  it('installs, enables and starts the service only once it has settings', () => {
    const postinst = expand(read(yml.deb.afterInstall));
    expect(postinst).toContain(`APP_DIR='${INSTALL_DIR}'`);
    expect(postinst).toContain('/lib/systemd/system/edge-appliance.service');
    expect(postinst).toContain('/etc/xdg/autostart/edge-kiosk.desktop');
    expect(postinst).toContain('systemctl enable edge-appliance.service');
    expect(postinst).toMatch(/grep -q '\^TENANT_ID=\.'.*\n\s+systemctl restart edge-appliance.service/);
    expect(postinst).toContain('if [ ! -e "$SETTINGS" ]');
    // electron-builder's own postinst is replaced: its essentials must be kept.
    expect(postinst).toContain('update-alternatives --install');
    expect(postinst).toContain('chrome-sandbox');
    expect(postinst).toContain('apparmor-profile');
  });

  it('undoes it on removal but not on upgrade, and keeps the store’s data even on purge', () => {
    const postrm = expand(read(yml.deb.afterRemove));
    expect(postrm).toMatch(/remove \| purge\) ;;\n\s+\*\) exit 0 ;;/);
    expect(postrm).toContain('systemctl disable --now edge-appliance.service');
    expect(postrm).toContain(
      'rm -f /lib/systemd/system/edge-appliance.service /etc/xdg/autostart/edge-kiosk.desktop',
    );
    expect(postrm).toContain('update-alternatives --remove');
    expect(postrm).toContain('rm -rf /etc/edge-appliance');
    expect(postrm).not.toMatch(/rm [^\n]*\/var\/lib/);
  });
});

describe('build-shell.ts', () => {
  it('gives the shell app a package.json with the repository’s version and the CommonJS entry', () => {
    expect(shellPackageJson({ version: '1.4.0', description: 'd' })).toEqual({
      name: yml.productName,
      version: '1.4.0',
      description: 'd',
      main: 'main.cjs',
      private: true,
    });
    expect(SHELL_FILES).toContain(shellPackageJson({ version: '0' }).main);
  });

  it('drops onnxruntime-node’s binaries for other systems, and nothing else', () => {
    const bin = 'onnxruntime-node/bin/napi-v6';
    expect(isForeignBinary(`${bin}/linux/x64/libonnxruntime.so.1`, 'x64')).toBe(false);
    expect(isForeignBinary(`${bin}/linux`, 'x64')).toBe(false);
    expect(isForeignBinary(`${bin}/linux/arm64/libonnxruntime.so.1`, 'x64')).toBe(true);
    expect(isForeignBinary(`${bin}/linux/x64`, 'arm64')).toBe(true);
    expect(isForeignBinary(`${bin}/darwin`, 'x64')).toBe(true);
    expect(isForeignBinary(`node_modules/${bin}/win32/x64/onnxruntime.dll`, 'x64')).toBe(true);
    expect(isForeignBinary('onnxruntime-node/dist/index.js', 'x64')).toBe(false);
    expect(isForeignBinary('sharp/lib/index.js', 'x64')).toBe(false);
  });

  it('copies each package folder once, nested ones with their parent', () => {
    expect(
      foldersToCopy([
        'fastify',
        'fastify/node_modules/semver',
        '@fastify/static',
        'pino',
        'pino-std-serializers',
        'pino',
      ]),
    ).toEqual(['@fastify/static', 'fastify', 'pino', 'pino-std-serializers']);
  });

  it('names what must be built before packaging', () => {
    expect(missingInputs(() => true)).toEqual([]);
    expect(missingInputs((path) => path !== 'appliance/kiosk/web/dist')).toEqual([
      'appliance/kiosk/web/dist',
    ]);
  });
});

describe('the compiled shell', () => {
  let outdir: string;
  let result: Awaited<ReturnType<typeof compileShell>>;
  beforeAll(async () => {
    outdir = mkdtempSync(join(tmpdir(), 'kiosk-shell-'));
    result = await compileShell(outdir, { write: false });
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  /** What a bundle still requires (metafile outputs are named relative to the repository). */
  const importsOf = (output: string) => {
    const found = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith(`/${output}`));
    return found![1].imports.map((it) => it.path);
  };

  it('compiles main and preload to CommonJS without a warning', () => {
    expect(result.warnings).toEqual([]);
    const names = result.outputFiles!.map((file) => file.path.slice(outdir.length + 1)).sort();
    expect(names).toEqual(['main.cjs', 'preload.cjs']);
    for (const file of result.outputFiles!) expect(file.text.startsWith('"use strict";')).toBe(true);
  });

  it('leaves only Electron and Node’s own modules outside the main bundle', () => {
    for (const path of importsOf('main.cjs'))
      expect(path === 'electron' || /^(node:)?[a-z_]+(\/[a-z_]+)?$/.test(path), path).toBe(true);
  });

  it('gives the sandboxed preload nothing to require but electron', () => {
    expect(importsOf('preload.cjs')).toEqual(['electron']);
    const preload = result.outputFiles!.find((file) => file.path.endsWith('preload.cjs'))!.text;
    expect(preload).not.toMatch(/module\.exports|exports\./);
    expect(preload).toContain('exposeInMainWorld("kiosk"');
  });
});
