/**
 * P&L reports benchmark (issue 9): one year of a chain (3 brands, 50 locations, 2 million order
 * lines; a tenth of that with `quick`) written through the rollup code path the sync observers use
 * (see reports-data.ts), then each report's latency over HTTP against a gateway listening on a real
 * port in this process, sequential requests, p50/p95; the metric catalog (no data read) is the
 * baseline. SQLite and PostgreSQL. Writes bench-results/pnl-reports.json when run directly:
 * `npx tsx scripts/bench/pnl/reports.ts [--quick] [--backend sqlite|pg]`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Kysely, sql } from 'kysely';
import { buildApp } from '../../../cloud/app.ts';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { createDialect } from '../../../cloud/db/dialect/pg.ts';
import { openStore, type Store } from '../../../cloud/db/index.ts';
import { createCloudServices } from '../../../cloud/services.ts';
import { systemClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { codeVersion, machineSampler } from '../lib/report.ts';
import { type ChainPlan, generateChain } from './reports-data.ts';

export type PnlBackend = 'sqlite' | 'pg';
const RESULTS_DIR = fileURLToPath(new URL('../../../bench-results/', import.meta.url));
const DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const PNL_REPORT_GOAL_P95_MS = 500;

const PLANS: Record<'full' | 'quick', ChainPlan & { requests: number }> = {
  full: {
    brands: 3,
    locations: 50,
    orderLines: 2_000_000,
    days: 365,
    menuItems: 30,
    staffPerStore: 4,
    requests: 30,
  },
  quick: {
    brands: 3,
    locations: 50,
    orderLines: 200_000,
    days: 365,
    menuItems: 30,
    staffPerStore: 4,
    requests: 20,
  },
};

async function openBenchStore(backend: PnlBackend) {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-pnl-'));
    const store = await openStore({ dataDir: dir });
    return { store, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `bench_pnl_${randomBytes(4).toString('hex')}`;
  const store = await openStore({ dataDir: '', databaseUrl: DATABASE_URL, schema });
  const drop = async () => {
    const admin = new Kysely<unknown>({ dialect: createDialect(DATABASE_URL) });
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
    await admin.destroy();
  };
  return { store, drop };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function time(url: string, token: string, method: 'GET' | 'POST', body: unknown, requests: number) {
  const samples: number[] = [];
  const call = async () => {
    const started = performance.now();
    const response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${method} ${url}: ${response.status} ${text}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 3; i += 1) await call();
  for (let i = 0; i < requests; i += 1) samples.push(await call());
  samples.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    requests,
    p50_ms: round(percentile(samples, 50)),
    p95_ms: round(percentile(samples, 95)),
    max_ms: round(samples.at(-1)!),
  };
}

async function measure(store: Store, plan: (typeof PLANS)['full']) {
  const config = {
    ...loadCloudConfig({}),
    logLevel: 'warn' as const,
    rateLimit: false,
    hashing: { memoryCost: 1024, timeCost: 1 },
  };
  const services = createCloudServices(config, { store, clock: systemClock, newId });
  const generationStarted = performance.now();
  const chain = await generateChain(services, store, plan);
  const generation_s = Math.round((performance.now() - generationStarted) / 100) / 10;
  const app = await buildApp(config, { store, clock: systemClock, newId, services });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const email = 'finance@bench-pnl.test';
    await services.tenancy.addUser(chain.tenant.id, {
      email,
      password: 'bench-password-1',
      roles: ['tenant_admin'],
    });
    const login = (await (
      await fetch(`${address}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'bench-password-1' }),
      })
    ).json()) as { status: { access_token: string } };
    const token = login.status.access_token as string;
    const year = { start_date: '2025-01-01', end_date: '2025-12-31' };
    const api = `${address}/api/v1/pnl`;
    const cases: Array<[string, 'GET' | 'POST', string, unknown]> = [
      ['metrics (baseline, no data)', 'GET', `${api}/metrics`, undefined],
      [
        'consolidated (year, budget, prior period)',
        'POST',
        `${api}/consolidated`,
        { ...year, include_budget: true, include_prior_period: true },
      ],
      ['brand (year)', 'POST', `${api}/brand/${chain.brands[0]!.id}`, year],
      ['region (year)', 'POST', `${api}/region/${chain.regions[0]!.id}`, year],
      [
        'compare (3 brands, year)',
        'POST',
        `${api}/compare`,
        { ...year, brand_ids: chain.brands.map((b) => b.id) },
      ],
      [
        'custom (all sections by location, year)',
        'POST',
        `${api}/custom`,
        {
          ...year,
          sections: ['revenue', 'cogs', 'operating_expenses', 'other_income', 'other_expenses'],
          group_by: 'location',
        },
      ],
      ['trend (day, year)', 'POST', `${api}/trend`, { ...year, metric: 'net_margin', granularity: 'day' }],
      [
        'trend (month, brand, year)',
        'POST',
        `${api}/trend`,
        { ...year, metric: 'net_revenue', brand_id: chain.brands[1]!.id },
      ],
    ];
    const reports: Record<string, Awaited<ReturnType<typeof time>>> = {};
    for (const [name, method, url, body] of cases)
      reports[name] = await time(url, token, method, body, plan.requests);
    return { order_lines: chain.lines, locations: chain.locations.length, generation_s, reports };
  } finally {
    await app.close();
    await services.webhooks.close();
  }
}

export async function runPnlReportsBench(
  options: { backend?: PnlBackend | undefined; quick?: boolean | undefined } = {},
) {
  const plan = options.quick ? PLANS.quick : PLANS.full;
  const machine = machineSampler();
  const backends: PnlBackend[] = options.backend ? [options.backend] : ['sqlite', 'pg'];
  const results: Partial<Record<PnlBackend, Awaited<ReturnType<typeof measure>>>> = {};
  for (const backend of backends) {
    const { store, drop } = await openBenchStore(backend);
    try {
      results[backend] = await measure(store, plan);
    } finally {
      await store.close();
      await drop();
    }
  }
  const goals = Object.entries(results).flatMap(([backend, r]) =>
    Object.entries(r.reports)
      .filter(([name]) => !name.startsWith('metrics'))
      .map(([name, figures]) => ({
        subject: backend,
        measure: `${name} p95_ms`,
        target: `< ${PNL_REPORT_GOAL_P95_MS}`,
        value: figures.p95_ms,
        met: figures.p95_ms < PNL_REPORT_GOAL_P95_MS,
      })),
  );
  return {
    name: 'pnl-reports',
    quick: Boolean(options.quick),
    plan,
    machine: machine(),
    code: codeVersion(),
    results,
    goals,
    valid: Object.keys(results).length === backends.length,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' }, backend: { type: 'string' } } });
  const report = await runPnlReportsBench({
    quick: values.quick,
    backend: values.backend as PnlBackend | undefined,
  });
  await mkdir(RESULTS_DIR, { recursive: true });
  await writeFile(join(RESULTS_DIR, 'pnl-reports.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify({ results: report.results, goals: report.goals }, null, 2)}\n`);
}
