/**
 * `npm run bench -- console [--quick]`: the fleet console's weight and speed. The console is built
 * (when a source is newer than the build) and what the Stores screen loads is gzipped at level 9,
 * as a server would send it. Then a cloud process on SQLite serves a tenant of 200 stores (20 of
 * them with a sync status their appliances reported), and Debian's Chromium signs in through the
 * form again and again, timing from the form's submit to the 200th store row in the DOM. The
 * baseline, in the same run and the same page: the stores list request alone, with the page's
 * token, which no render of it can beat.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type Browser, chromium, type Page } from 'playwright-core';
import { loadCloudConfig } from '../../cloud/config.ts';
import { openStore } from '../../cloud/db/index.ts';
import { createCloudServices } from '../../cloud/services.ts';
import { systemClock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { CONSOLE_DIST_DIR, ensureConsoleBuilt } from '../console/build-ui.ts';
import { signalAll, startServer } from './lib/children.ts';
import { codeVersion, type Goal, goalsMetLine, machineSampler } from './lib/report.ts';
import { percentiles } from './vision/stats.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const RESULTS_DIR = fileURLToPath(new URL('../../bench-results/', import.meta.url));
const BUNDLE_LIMIT_KB = 300;
const FIRST_RENDER_LIMIT_MS = 1000;
const STORES = 200;
const REPORTING_STORES = 20;
const BRANDS = ['Burgers', 'Tacos', 'Noodles'];
const REGIONS = ['North', 'South', 'East', 'West', 'Central'];
const ADMIN = { email: 'admin@bench-console.test', password: 'bench-console-password' };

const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
const gzip9 = (bytes: Buffer) => gzipSync(bytes, { level: 9 }).length;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The built files the Stores screen loaded (paths under /console/), and every asset of the build. */
function bundleSizes(dist: string, loaded: ReadonlySet<string>) {
  const assets = filesUnder(join(dist, 'assets')).map((path) => {
    const bytes = readFileSync(path);
    const file = path.slice(dist.length + 1);
    return { file, bytes: bytes.length, gzip_bytes: gzip9(bytes), stores_screen: loaded.has(file) };
  });
  const sum = (files: typeof assets, key: 'bytes' | 'gzip_bytes') => files.reduce((n, f) => n + f[key], 0);
  const screen = assets.filter((f) => f.stores_screen);
  return {
    files: assets,
    index_html_gzip_kb: kb(gzip9(readFileSync(join(dist, 'index.html')))),
    stores_screen_kb: kb(sum(screen, 'bytes')),
    stores_screen_gzip_kb: kb(sum(screen, 'gzip_bytes')),
    all_assets_gzip_kb: kb(sum(assets, 'gzip_bytes')),
  };
}

/**
 * A tenant of 200 stores in three brands and five regions, with its admin, written before the
 * cloud opens the file; answers the credentials of the stores whose appliances will report.
 */
async function seed(env: Record<string, string>) {
  const config = loadCloudConfig(env);
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: undefined, schema: undefined });
  try {
    const services = createCloudServices(config, { store, clock: systemClock, newId });
    const { tenancy, sync } = services;
    const tenant = await tenancy.createTenant({
      slug: 'bench-console',
      name: 'Bench Group',
      tier: 'enterprise',
    });
    const brands = await Promise.all(BRANDS.map((name) => tenancy.createGroup('brands', tenant.id, name)));
    const regions = await Promise.all(REGIONS.map((name) => tenancy.createGroup('regions', tenant.id, name)));
    // The cloud's own password hashing: signing in costs what it costs in production.
    await tenancy.addUser(tenant.id, { ...ADMIN, roles: ['tenant_admin'] });
    const credentials: string[] = [];
    for (let i = 0; i < STORES; i += 1) {
      const location = await tenancy.createLocation(tenant.id, {
        name: `${BRANDS[i % BRANDS.length]} ${String(i + 1).padStart(3, '0')}`,
        brand_id: brands[i % brands.length]!.id,
        region_id: regions[i % regions.length]!.id,
        timezone: 'America/New_York',
      });
      if (i < REPORTING_STORES)
        credentials.push((await sync.provisionAppliance(tenant.id, { location_id: location.id })).credential);
    }
    await services.webhooks.close();
    return credentials;
  } finally {
    await store.close();
  }
}

/** Each reporting store's appliance pulls once, telling the cloud its queue: seen, pulled, lagging. */
async function report(url: string, credentials: string[]) {
  const oldest = new Date(Date.now() - 90_000).toISOString();
  await Promise.all(
    credentials.map(async (credential, i) => {
      const query = `cursor=0&limit=100&queue_depth=${i % 4 === 0 ? 12 + i : 0}${i % 4 === 0 ? `&oldest_pending_at=${oldest}` : ''}`;
      const response = await fetch(`${url}/v1/sync/pull?${query}`, {
        headers: { authorization: `Appliance ${credential}` },
      });
      if (!response.ok)
        throw new Error(`a store's pull answered ${response.status}: ${await response.text()}`);
    }),
  );
}

/**
 * One sign-in: ms from the form's submit to the 200th store row, both stamped in the page (a
 * MutationObserver installed through the debugger, which the console's CSP does not govern), and
 * the stores list request alone from the same page with its token. Also answers the files the
 * page loaded under /console/.
 */
async function signInOnce(browser: Browser, url: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const tokens: string[] = [];
    const loaded = new Set<string>();
    page.on('request', (request) => {
      const header = request.headers().authorization;
      if (header?.startsWith('Bearer ')) tokens.push(header.slice('Bearer '.length));
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/console/assets/')) loaded.add(path.slice('/console/'.length));
    });
    await page.goto(`${url}/console/`);
    const form = page.getByTestId('signin-form');
    await form.waitFor();
    await form.locator('input[name="email"]').fill(ADMIN.email);
    await form.locator('input[name="password"]').fill(ADMIN.password);
    await page.evaluate(`(() => {
      document.addEventListener('submit', () => { window.__submitted = performance.now(); }, true);
      window.__rendered = new Promise((resolve) => {
        const observer = new MutationObserver(() => {
          if (document.querySelectorAll('[data-testid="store-row"]').length < ${STORES}) return;
          observer.disconnect();
          resolve(performance.now());
        });
        observer.observe(document.body, { childList: true, subtree: true });
      });
    })()`);
    await form.locator('button[type="submit"]').click();
    const rendered = await withTimeout(
      page.evaluate<number>('window.__rendered'),
      20_000,
      'the 200th store row',
    );
    const submitted = await page.evaluate<number>('window.__submitted');
    const answered = await responsesEnded(page);
    const token = tokens.at(-1);
    if (!token) throw new Error('the page sent no bearer token');
    return {
      first_render_ms: rendered - submitted,
      login_ms: answered.login - submitted,
      list_answered_ms: answered.list - submitted,
      list_request_ms: await listRequest(page, token),
      loaded,
    };
  } finally {
    await context.close();
  }
}

/** When (performance.now()) the sign-in's answer and the stores list's answer had arrived. */
const responsesEnded = (page: Page) =>
  page.evaluate<{ login: number; list: number }>(`(() => {
    const ended = (part) => {
      const entry = performance.getEntriesByType('resource').find((e) => e.name.includes(part));
      if (!entry) throw new Error('no request for ' + part);
      return entry.responseEnd;
    };
    return { login: ended('/v1/auth/login'), list: ended('/v1/fleet/stores') };
  })()`);

async function listRequest(page: Page, token: string) {
  return page.evaluate<number>(`(async () => {
    const started = performance.now();
    const response = await fetch('/v1/fleet/stores?limit=500', { headers: { authorization: 'Bearer ${token}' }, cache: 'no-store' });
    const body = await response.json();
    if (!response.ok || body.data.length < ${STORES}) throw new Error('the list answered ' + response.status);
    return performance.now() - started;
  })()`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The console as built now, copied aside so a rebuild of dist/ meanwhile cannot change it. */
async function buildConsole() {
  await ensureConsoleBuilt({ quiet: true });
  const dir = join(mkdtempSync(join(tmpdir(), 'bench-console-build-')), 'dist');
  cpSync(CONSOLE_DIST_DIR, dir, { recursive: true });
  return dir;
}

async function measure(runs: number, dist: string, problems: string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-console-cloud-'));
  const env = {
    CLOUD_PORT: '0',
    CLOUD_HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    CLOUD_RATE_LIMIT: 'false',
    CLOUD_CONSOLE_DIR: dist,
    // Its "cloud listening" line is the announcement the bench waits for.
    LOG_LEVEL: 'info',
  };
  const credentials = await seed(env);
  // A bench stopped by a signal exits: the cloud is asked to stop on the way out.
  process.on('exit', signalAll);
  const cloud = await startServer({ file: 'cloud/main.ts', env });
  const browser = await chromium
    .launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    .catch(async (error: unknown) => {
      await cloud.stop();
      throw error;
    });
  const render: number[] = [];
  const baseline: number[] = [];
  const login: number[] = [];
  const listAnswered: number[] = [];
  const loaded = new Set<string>();
  try {
    const url = `http://127.0.0.1:${cloud.announced.port}`;
    await report(url, credentials);
    for (let i = 0; i < runs + 1; i += 1) {
      const result = await signInOnce(browser, url).catch((error: unknown) => {
        problems.push(`run ${i}: ${(error as Error).message.split('\n')[0]}`);
        return undefined;
      });
      for (const file of result?.loaded ?? []) loaded.add(file);
      // The first run warms the cloud's statement caches and Chromium's code cache.
      if (result && i > 0) {
        render.push(result.first_render_ms);
        baseline.push(result.list_request_ms);
        login.push(result.login_ms);
        listAnswered.push(result.list_answered_ms);
      }
    }
  } finally {
    await browser.close();
    await cloud.stop();
    process.off('exit', signalAll);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return { render, baseline, login, listAnswered, loaded };
}

export interface ConsoleReport {
  name: 'console';
  at: string;
  commit: string;
  code: ReturnType<typeof codeVersion>;
  machine: ReturnType<ReturnType<typeof machineSampler>>;
  method: Record<string, string>;
  valid: boolean;
  problems: string[];
  runs: number;
  bundle: ReturnType<typeof bundleSizes>;
  render: {
    p50: number | null;
    p95: number | null;
    baseline_p50: number | null;
    baseline_p95: number | null;
    first_render_ms: ReturnType<typeof percentiles>;
    baseline_list_request_ms: ReturnType<typeof percentiles>;
    /** Where the render's time goes: submit to the sign-in's answer, and to the stores list's. */
    login_answered_ms: ReturnType<typeof percentiles>;
    list_answered_ms: ReturnType<typeof percentiles>;
  };
  goals: Goal[];
  goals_met: boolean;
}

export async function runConsoleBench(options: { quick?: boolean | undefined }): Promise<ConsoleReport> {
  const machine = machineSampler();
  const runs = options.quick ? 5 : 20;
  const problems: string[] = [];
  const dist = await buildConsole();
  let measured: Awaited<ReturnType<typeof measure>>;
  let bundle: ReturnType<typeof bundleSizes>;
  try {
    measured = await measure(runs, dist, problems);
    bundle = bundleSizes(dist, measured.loaded);
  } finally {
    rmSync(join(dist, '..'), { recursive: true, force: true, maxRetries: 2 });
  }
  const render = percentiles(measured.render, 1);
  const baseline = percentiles(measured.baseline, 1);
  const valid = problems.length === 0 && measured.render.length === runs && measured.loaded.size > 0;
  const goals: Goal[] = [
    {
      subject: 'console',
      measure: 'Stores screen bundle, gzipped KB',
      target: `< ${BUNDLE_LIMIT_KB}`,
      value: bundle.stores_screen_gzip_kb,
      met: measured.loaded.size > 0 && bundle.stores_screen_gzip_kb < BUNDLE_LIMIT_KB,
    },
    {
      subject: 'console',
      measure: `first render of ${STORES} stores after sign-in p95, ms`,
      target: `< ${FIRST_RENDER_LIMIT_MS}`,
      value: render.p95,
      met: valid && render.p95 !== null && render.p95 < FIRST_RENDER_LIMIT_MS,
    },
  ];
  const code = codeVersion(['cloud', 'shared']);
  const report: ConsoleReport = {
    name: 'console',
    at: new Date().toISOString(),
    commit: code.commit,
    code,
    machine: machine(),
    method: {
      bundle:
        'the console built when a source is newer than the build (Vite); each file under dist/assets/ the Stores screen loaded (as Chromium requested it) gzipped at level 9',
      first_render: `a cloud process on SQLite with ${STORES} stores (${REPORTING_STORES} with a sync status from their appliances' pulls); Chromium (headless, 1280x800, fresh context per run) signs in through the form; from the form's submit to the ${STORES}th store-row in the DOM, both stamped in the page; first run discarded`,
      baseline: `GET /v1/fleet/stores?limit=500 alone with the page's token, fetched and parsed in the same page after each render`,
    },
    valid,
    problems,
    runs,
    bundle,
    render: {
      p50: render.p50,
      p95: render.p95,
      baseline_p50: baseline.p50,
      baseline_p95: baseline.p95,
      first_render_ms: render,
      baseline_list_request_ms: baseline,
      login_answered_ms: percentiles(measured.login, 1),
      list_answered_ms: percentiles(measured.listAnswered, 1),
    },
    goals,
    goals_met: goals.every((goal) => goal.met),
  };
  await mkdir(RESULTS_DIR, { recursive: true });
  await writeFile(
    join(RESULTS_DIR, `console-${report.at.replace(/[:.]/g, '-')}.json`),
    `${JSON.stringify(report, null, 2)}\n`,
  );
  return report;
}

export function summarizeConsole(report: ConsoleReport) {
  const r = report.render;
  const b = report.bundle;
  const row = (cells: Array<string | number | null>) =>
    cells.map((c, i) => String(c ?? '-').padEnd(i === 0 ? 44 : 10)).join('');
  const figures = (label: string, p: ReturnType<typeof percentiles>) => row([label, p.p50, p.p95, p.max]);
  return [
    row(['ms', 'p50', 'p95', 'max']),
    figures(`submit to the ${STORES}th store row`, r.first_render_ms),
    figures('  of which: submit to sign-in answered', r.login_answered_ms),
    figures('  of which: submit to stores list answered', r.list_answered_ms),
    figures('baseline: the stores list request alone', r.baseline_list_request_ms),
    `bundle: the Stores screen loads ${b.stores_screen_gzip_kb} KB gzipped (${b.stores_screen_kb} KB raw, ${b.files.filter((f) => f.stores_screen).length} files); every asset ${b.all_assets_gzip_kb} KB gzipped; index.html ${b.index_html_gzip_kb} KB`,
    `runs: ${report.runs} (commit ${report.commit}, load ${report.machine.load_1m.before} → ${report.machine.load_1m.after})`,
    ...report.problems.map((p) => `problem: ${p}`),
    ...report.goals.map((g) => `${g.measure} ${g.target}: ${g.value ?? '-'} ${g.met ? 'met' : 'NOT met'}`),
    goalsMetLine(report.goals),
  ];
}
