/**
 * Does a version work here? Asked twice of an update. Before the switch, the NEW version answers
 * for itself in a process of its own (`appliance.mjs --health-check`) on a scratch copy of the
 * store's data: it starts, answers /health, finds the database at the migrations it knows (a
 * database newer than the code is a downgrade, and fails), reaches the cloud with this store's
 * credential when the cloud is reachable, and takes a test order through its own HTTP API as a
 * dry run. After the switch and the restart, the running version checks itself once more against
 * the real store (it answers /health, its migrations hold) and confirms the install.
 */
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import type { ApplianceConfig } from '../config.ts';
import { type ApplianceDatabase, migrations as knownMigrations } from '../db/index.ts';

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

/** The one line `--health-check` prints on stdout. */
export interface HealthReport {
  healthy: boolean;
  version: string | undefined;
  checks: CheckResult[];
}

/** The data directories a check may write to carry this file; the store's own never does. */
export const SCRATCH_MARKER = '.health-check-scratch';

const REQUEST_TIMEOUT_MS = 5000;

const passed = (name: string, detail: string): CheckResult => ({ name, ok: true, detail });
const failed = (name: string, detail: string): CheckResult => ({ name, ok: false, detail });

async function getJson(url: string, headers: Record<string, string> = {}, body?: unknown) {
  const response = await request(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
  const text = await response.body.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, json };
}

/** The appliance answers GET /health over HTTP, on the port it listens on. */
export async function checkHealthAnswered(base: string): Promise<CheckResult> {
  try {
    const { status } = await getJson(`${base}/health`);
    return status === 200
      ? passed('health', 'GET /health answered 200')
      : failed('health', `GET /health answered ${status}`);
  } catch (error) {
    return failed('health', `GET /health failed: ${(error as Error).message}`);
  }
}

/**
 * The database is at the newest migration this code knows, and at none it does not: a migration
 * it does not know was applied by a newer version, whose tables this one would misread.
 */
export function checkMigrations(db: ApplianceDatabase): CheckResult {
  const known = new Set(knownMigrations.map((migration) => migration.version));
  const newestKnown = Math.max(...known);
  const applied = (
    db.prepare('select version from schema_migrations').all() as Array<{ version: number }>
  ).map((row) => row.version);
  const newestApplied = Math.max(0, ...applied);
  const unknown = applied.filter((version) => !known.has(version));
  if (unknown.length > 0)
    return failed(
      'migrations',
      `the database is at migration ${newestApplied}, newer than this version's ${newestKnown}`,
    );
  if (newestApplied !== newestKnown)
    return failed(
      'migrations',
      `the database is at migration ${newestApplied}, this version's newest is ${newestKnown}`,
    );
  return passed('migrations', `the database is at migration ${newestKnown}, this version's newest`);
}

/**
 * The cloud, when there is one and it can be reached: its /health first (a network error or an
 * outage is the cloud's trouble, not this version's, and skips the point), then the read sync
 * itself makes, a pull from the store's cursor with its credential. A refusal there means this
 * version would not sync, which fails the check.
 */
export async function checkCloud(config: ApplianceConfig, db: ApplianceDatabase): Promise<CheckResult> {
  if (!config.cloudUrl) return passed('cloud', 'skipped: no cloud configured');
  try {
    const health = await getJson(`${config.cloudUrl}/health`);
    if (health.status >= 500)
      return passed('cloud', `skipped: the cloud answered /health with ${health.status}`);
  } catch {
    return passed('cloud', 'skipped: cloud unreachable');
  }
  const credential = config.sync.credential;
  if (!credential) return passed('cloud', 'reachable; no sync credential to check');
  const { cursor } = db.prepare('select cursor from sync_state where id = 1').get() as { cursor: number };
  try {
    const pull = await getJson(`${config.cloudUrl}/v1/sync/pull?cursor=${cursor}&limit=1`, {
      authorization: `Appliance ${credential}`,
    });
    if (pull.status === 200) return passed('cloud', 'reachable; the sync credential is accepted');
    if (pull.status >= 500 || pull.status === 429)
      return passed('cloud', `skipped: the cloud answered the sync pull with ${pull.status}`);
    const error = pull.json?.error as { code?: string } | undefined;
    return failed(
      'cloud',
      `the cloud refused this appliance's sync pull: ${pull.status} ${error?.code ?? ''}`.trim(),
    );
  } catch {
    return passed('cloud', 'skipped: cloud unreachable');
  }
}

/** The appliance's staff store, as far as the check needs it. */
export interface CheckStaff {
  upsertStaff(input: {
    id: string;
    email: string;
    username: string;
    displayName: string;
    roles: string[];
    pin: string;
    version: number;
  }): Promise<boolean>;
}

/**
 * Signs in as staff over HTTP. The check's staff member exists only in the scratch copy, put
 * there in-process; the API is asked exactly as a till asks it, and has no way in for the check.
 */
async function signIn(base: string, staff: CheckStaff, newId: () => string) {
  const pin = String(randomInt(100_000, 1_000_000));
  const username = 'update-health-check';
  await staff.upsertStaff({
    id: newId(),
    email: `${username}@appliance.invalid`,
    username,
    displayName: 'Update health check',
    roles: ['staff'],
    pin,
    version: 1,
  });
  const login = await getJson(`${base}/v1/auth/login/pin`, {}, { identifier: username, pin });
  const token = (login.json?.status as { access_token?: string } | undefined)?.access_token;
  if (login.status !== 200 || !token) throw new Error(`PIN sign-in answered ${login.status}`);
  return { authorization: `Bearer ${token}` };
}

const counts = (db: ApplianceDatabase) =>
  JSON.stringify(
    db
      .prepare(
        `select (select count(*) from orders) as orders, (select count(*) from outbox) as outbox,
           (select count(*) from events) as events`,
      )
      .get(),
  );

/**
 * A test order through the API, as a dry run. A store with no item it could sell cannot show that
 * it sells, and the version before could not either: the point is skipped rather than failed.
 */
export async function checkOrder(
  base: string,
  deps: { db: ApplianceDatabase; staff: CheckStaff; newId: () => string },
): Promise<CheckResult> {
  try {
    const headers = await signIn(base, deps.staff, deps.newId);
    const menu = await getJson(`${base}/v1/commerce/menu/items`, headers);
    if (menu.status !== 200) return failed('order', `GET /v1/commerce/menu/items answered ${menu.status}`);
    const items = (menu.json?.data ?? []) as Array<{ id: string; available: boolean }>;
    const item = items.find((candidate) => candidate.available);
    if (!item) return passed('order', 'skipped: no orderable item');
    const before = counts(deps.db);
    const order = await getJson(`${base}/v1/commerce/orders?dry_run=true`, headers, {
      order_type: 'takeout',
      items: [{ menu_item_id: item.id, quantity: 1 }],
    });
    const data = order.json?.data as { dry_run?: boolean; items?: unknown[] } | undefined;
    if (order.status !== 200 || data?.dry_run !== true || data.items?.length !== 1)
      return failed('order', `the dry-run order answered ${order.status}`);
    if (counts(deps.db) !== before) return failed('order', 'the dry-run order left rows behind');
    return passed('order', 'a dry-run order was taken and rolled back');
  } catch (error) {
    return failed('order', `the dry-run order failed: ${(error as Error).message}`);
  }
}

export const reportOf = (version: string | undefined, checks: CheckResult[]): HealthReport => ({
  healthy: checks.every((check) => check.ok),
  version,
  checks,
});

/** The failing checks, as one reason a person can read. */
export const failureReason = (report: HealthReport) =>
  report.checks
    .filter((check) => !check.ok)
    .map((check) => `${check.name}: ${check.detail}`)
    .join('; ') || 'the health check failed';

/** What `--health-check` starts: the appliance, as main.ts starts it. */
export interface CheckedAppliance {
  port: number;
  db: ApplianceDatabase;
  services: { auth: CheckStaff };
  stop(): Promise<void>;
}

/**
 * The configuration the check starts with: on loopback and free ports, with nothing that reaches
 * past this machine (no fleet link, no sync, no certificate renewal, no revocation polls, no
 * cameras), whatever the environment says. The cloud is asked only by the check itself.
 */
export function checkConfig(config: ApplianceConfig): ApplianceConfig {
  return {
    ...config,
    port: 0,
    host: '127.0.0.1',
    cloudUrl: undefined,
    fleet: undefined,
    sync: { ...config.sync, credential: undefined },
    mqtt: { ...config.mqtt, tcpPort: undefined, tlsPort: 0 },
    vision: { ...config.vision, enabled: false },
  };
}

/**
 * `appliance.mjs --health-check`: starts this version on the data directory it is given (a
 * scratch copy: the check signs in with a staff member it adds there), runs every check, stops.
 */
export async function runHealthCheck(deps: {
  env: Record<string, string | undefined>;
  version: string;
  loadConfig: (env: Record<string, string | undefined>) => ApplianceConfig;
  start: (config: ApplianceConfig) => Promise<CheckedAppliance>;
  newId: () => string;
}): Promise<HealthReport> {
  let config: ApplianceConfig;
  try {
    config = deps.loadConfig(deps.env);
  } catch (error) {
    return reportOf(deps.version, [failed('config', (error as Error).message)]);
  }
  if (!existsSync(join(config.dataDir, SCRATCH_MARKER)))
    return reportOf(deps.version, [
      failed('data', `${config.dataDir} is not a scratch copy of a store's data; the check runs only on one`),
    ]);
  let appliance: CheckedAppliance;
  try {
    appliance = await deps.start(checkConfig(config));
  } catch (error) {
    return reportOf(deps.version, [failed('start', (error as Error).message)]);
  }
  const base = `http://127.0.0.1:${appliance.port}`;
  const checks = [passed('start', 'started')];
  try {
    checks.push(await checkHealthAnswered(base));
    checks.push(checkMigrations(appliance.db));
    checks.push(await checkCloud(config, appliance.db));
    checks.push(
      await checkOrder(base, { db: appliance.db, staff: appliance.services.auth, newId: deps.newId }),
    );
  } finally {
    await appliance.stop().catch((error: unknown) => checks.push(failed('stop', (error as Error).message)));
  }
  return reportOf(deps.version, checks);
}
