import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CASHIER,
  createTestAppliance,
  LOCATION,
  MANAGER,
  TENANT,
  type TestAppliance,
} from '../../support/appliance.ts';
import { fuzz, operationsOf, unboundedIn } from '../../support/fuzz.ts';
import { limitsPage } from '../../support/list-limits.ts';

/** The staff sign-in throttle counts failed PINs, refused or not: that is its job. */
const WRITTEN_ON_REFUSAL = new Set(['login_attempts', 'pin_attempts']);

const SEED = Number(process.env.FUZZ_SEED ?? 22);
const RUNS = Number(process.env.FUZZ_RUNS ?? 2);

describe('hostile input against every operation of the appliance’s OpenAPI document', () => {
  let appliance: TestAppliance;
  let token = '';

  beforeAll(async () => {
    appliance = await createTestAppliance();
    token = appliance.manager;
  });
  afterAll(() => appliance.close());

  it('finds no 5xx, no body outside the envelope, no internals, and no write from a refused request', async () => {
    const { db, app } = appliance;
    const tables = (
      db
        .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)
        .all() as Array<{
        name: string;
      }>
    )
      .map((row) => row.name)
      .filter((name) => !WRITTEN_ON_REFUSAL.has(name));
    const countAll = db.prepare(
      tables.map((table) => `select '${table}' as t, count(*) as n from "${table}"`).join(' union all '),
    );
    const rowCounts = async () =>
      Object.fromEntries((countAll.all() as Array<{ t: string; n: number }>).map((row) => [row.t, row.n]));
    const document = (await app.inject({ url: '/openapi.json' })).json();
    await expect(limitsPage('Appliance local API', document)).toMatchFileSnapshot(
      '../../../docs/limits/appliance.md',
    );
    const operations = operationsOf(document);
    expect(unboundedIn(operations)).toEqual([]);
    const started = Date.now();
    const report = await fuzz({
      app,
      operations,
      headersFor: () => ({ authorization: `Bearer ${token}` }),
      ids: {
        tenant_id: TENANT,
        location_id: LOCATION,
        staff_id: CASHIER,
        user_id: CASHIER,
        manager_id: MANAGER,
      },
      rowCounts,
      areaOf: () => 'general',
      seed: SEED,
      runs: RUNS,
      stillSignedIn: async () =>
        (await app.inject({ url: '/v1/auth/me', headers: { authorization: `Bearer ${token}` } }))
          .statusCode === 200,
      signIn: async () => {
        token = await appliance.login('ann');
      },
    });
    console.log(
      `appliance fuzz: ${operations.length} operations, ${report.requests} requests (${report.refused} refused, ${report.accepted} accepted) in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED}, ${RUNS} samples per field; unreached: ${report.unreached.join(', ') || 'none'}`,
    );
    for (const failure of report.failures.slice(0, 400)) console.log(JSON.stringify(failure));
    expect(report.failures).toEqual([]);
    expect(report.unreached).toEqual([]);
  }, 1_200_000);
});
