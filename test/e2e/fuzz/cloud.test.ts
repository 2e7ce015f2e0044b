import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { newId } from '../../../shared/ids.ts';
import { ROLES } from '../../../shared/roles.ts';
import { SYNC_TABLE_NAMES, syncTable, travelsUp } from '../../../shared/sync/registry.ts';
import {
  bearer,
  createTestCloud,
  loginTokens,
  seedTenant,
  signedInUser,
  TEST_PASSWORD,
  type TestCloud,
} from '../../support/cloud.ts';
import {
  type Area,
  cloudRowCounter,
  fuzz,
  type KnownIds,
  type Operation,
  operationsOf,
  unboundedIn,
} from '../../support/fuzz.ts';
import { limitsPage } from '../../support/list-limits.ts';
import { backends } from '../../support/stores.ts';

/**
 * The security trail writes beside requests by design: it records refused sign-ins, and a change's
 * entry is written as its answer goes out (onResponse), so it lands during the next request.
 */
const WRITTEN_ON_REFUSAL = new Set(['audit_events']);

const SEED = Number(process.env.FUZZ_SEED ?? 22);
/** fast-check samples per field beside the fixed hostile values; FUZZ_RUNS=50 for a long run. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2);

const areaOf = (path: string): Area =>
  path.startsWith('/v1/billing') ? 'billing' : path.startsWith('/api/v1/pnl') ? 'pnl' : 'general';

/**
 * A cloud for the fuzz: nothing writes behind a request's back while rows are counted around it
 * (no webhook worker; AIOps correlates alerts in passes of its own), no rate limit, and a sign-in
 * throttle that lets the fuzz's own failed sign-ins through without locking its admin out.
 */
async function fuzzCloud(backend: 'sqlite' | 'pg') {
  const defaults = loadCloudConfig({});
  const lenient = { slowAfter: 1e9, lockAfter: 1e9, lockMs: 1, forgetAfterMs: 1, maxDelayMs: 1 };
  return createTestCloud(backend, {
    config: {
      rateLimit: false,
      webhooks: { ...defaults.webhooks, runWorker: false },
      aiops: { ...defaults.aiops, correlation: { ...defaults.aiops.correlation, enabled: false } },
    },
    throttle: { account: lenient, address: lenient },
  });
}

/**
 * SQLite gets every hostile value; PostgreSQL, where the same requests meet a stricter store, the
 * values validation cannot refuse by type alone (edge numbers, U+0000, long and odd strings).
 */
describe.each(backends)(
  'hostile input against every operation of the cloud’s OpenAPI document (%s)',
  (backend) => {
    let cloud: TestCloud;
    const tokens: { admin: string; cockpit: string } = { admin: '', cockpit: '' };
    let credential = '';
    let ids: KnownIds = {};
    let rowCounts: () => Promise<Record<string, number>>;

    beforeAll(async () => {
      cloud = await fuzzCloud(backend);
      const seeded = await seedTenant(cloud.services, 'fuzz');
      const tenantId = seeded.tenant.id;
      const everyRole = ROLES.filter((role) => role !== 'cockpit_operator');
      const victim = await cloud.services.tenancy.addUser(tenantId, {
        email: 'victim@fuzz.test',
        password: 'correct-horse-battery',
        roles: ['staff'],
      });
      const admin = await signedInUser(cloud, tenantId, 'admin@fuzz.test', [...everyRole]);
      const cockpit = await signedInUser(cloud, tenantId, 'cockpit@fuzz.test', ['cockpit_operator']);
      tokens.admin = admin.token;
      tokens.cockpit = cockpit.token;
      const provisioned = await cloud.app.inject({
        method: 'POST',
        url: '/v1/sync/appliances',
        headers: bearer(admin.token),
        payload: { location_id: seeded.location.id, name: 'Fuzz appliance' },
      });
      credential = provisioned.json().data.credential;
      ids = {
        tenant_id: tenantId,
        location_id: seeded.location.id,
        brand_id: seeded.brand.id,
        region_id: seeded.region.id,
        user_id: victim.id,
        staff_id: victim.id,
      };
      rowCounts = await cloudRowCounter(cloud.store, WRITTEN_ON_REFUSAL);
    });
    afterAll(() => cloud.close());

    it('finds no 5xx, no body outside the area’s envelope, no internals, and no write from a refused request', async () => {
      const document = (await cloud.app.inject({ url: '/openapi.json' })).json();
      if (backend === 'sqlite')
        await expect(limitsPage('Cloud gateway', document)).toMatchFileSnapshot(
          '../../../docs/limits/cloud.md',
        );
      const operations = operationsOf(document);
      expect(unboundedIn(operations)).toEqual([]);
      const headersFor = (operation: Operation): Record<string, string> => {
        if (operation.security.includes('appliance') && !operation.security.includes('bearer'))
          return { authorization: `Appliance ${credential}` };
        return bearer(operation.path.startsWith('/api/internal/cockpit') ? tokens.cockpit : tokens.admin);
      };
      const started = Date.now();
      const report = await fuzz({
        app: cloud.app,
        operations,
        headersFor,
        ids,
        rowCounts,
        areaOf,
        seed: SEED,
        runs: RUNS,
        typedOnly: backend === 'pg',
        // The sync long poll answers at once with no wait asked for.
        pinned: { timeout_seconds: 0 },
        // Background work a request starts (alert correlation, a menu reaching its stores) ends before rows are counted.
        settle: async () => {
          await cloud.services.alerting.settled();
          await cloud.services.menu.settle();
        },
        stillSignedIn: async () =>
          (await cloud.app.inject({ url: '/v1/auth/me', headers: bearer(tokens.admin) })).statusCode === 200,
        signIn: async () => {
          tokens.admin = (
            await loginTokens(cloud.app, { email: 'admin@fuzz.test', password: TEST_PASSWORD })
          ).access_token;
        },
      });
      console.log(
        `cloud fuzz (${backend}): ${operations.length} operations, ${report.requests} requests (${report.refused} refused, ${report.accepted} accepted) in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED}, ${RUNS} samples per field; unreached: ${report.unreached.join(', ') || 'none'}`,
      );
      for (const failure of report.failures.slice(0, 400)) console.log(JSON.stringify(failure));
      expect(report.failures).toEqual([]);
      expect(report.unreached).toEqual([]);
    }, 1_200_000);

    it('takes every synced table’s row with its integers at the edges, or refuses it per change, never a 5xx', async () => {
      const edges = [0, -1, 2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, -(2 ** 53 - 1)];
      const texts = ['x'.repeat(100_000), '\ud800', `${'['.repeat(5000)}${']'.repeat(5000)}`];
      let version = 1;
      const failures: string[] = [];
      for (const table of SYNC_TABLE_NAMES.filter(travelsUp)) {
        const spec = syncTable(table);
        const valid = Object.fromEntries(
          Object.entries(spec.columns).map(([column, type]) => [
            column,
            type.startsWith('integer') ? 1 : type === 'json' ? '{}' : (spec.enums?.[column]?.[0] ?? 'x'),
          ]),
        );
        const variants = Object.entries(spec.columns).flatMap(([column, type]) =>
          (type.startsWith('integer') ? edges : texts).map((value) => ({ column, value })),
        );
        for (const { column, value } of variants) {
          const rowId = newId();
          const fields = { ...valid, [spec.key]: rowId, [column]: column === spec.key ? rowId : value };
          const response = await cloud.app.inject({
            method: 'POST',
            url: '/v1/sync/push',
            headers: { authorization: `Appliance ${credential}` },
            payload: {
              changes: [
                {
                  change_id: newId(),
                  table,
                  row_id: rowId,
                  op: 'insert',
                  base_version: 0,
                  version: version++,
                  hlc: `${Date.now()}-0000-fuzz`,
                  fields,
                },
              ],
            },
          });
          if (response.statusCode >= 500)
            failures.push(`${table}.${column}=${String(value).slice(0, 20)}: ${response.statusCode}`);
        }
      }
      expect(failures).toEqual([]);
    }, 600_000);
  },
);
