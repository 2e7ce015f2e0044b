/**
 * `npm run bench -- alerts`: alert ingest with dedupe (distinct and repeated fingerprints) against
 * a trivial authenticated GET on the same server in the same run, and the time from a P1 ingest's
 * 201 to its first notification attempt, received by a real SMS provider on loopback. The cloud is
 * built as cloud/main.ts builds it, on a fresh SQLite file or PostgreSQL schema, with its notify
 * and escalation workers running.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { buildApp } from '../../cloud/app.ts';
import { loadCloudConfig } from '../../cloud/config.ts';
import { openStore } from '../../cloud/db/index.ts';
import { createCloudServices } from '../../cloud/services.ts';
import { systemClock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { type AlertsReport, type BackendReport, type RateFigures, summarizeAlerts } from './alerts/report.ts';
import { startSmsProvider } from './alerts/sms-provider.ts';
import { WARMUP_SECONDS } from './lib/load.ts';
import { codeVersion, judgeGoals, machineSampler } from './lib/report.ts';
import { dropSchema } from './sync/pg.ts';

export { summarizeAlerts };
export const ALERT_BACKENDS = ['sqlite', 'pg'] as const;
type Backend = (typeof ALERT_BACKENDS)[number];

const PASSWORD = 'correct-horse-battery';
const LATENCY_ALERTS = 250;
/** P1 ingests for the latency measure arrive at this pace (an incident storm, not a load test). */
const LATENCY_GAP_MS = 20;

interface AutocannonResult {
  requests: { mean: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: object,
) => Promise<AutocannonResult>;

async function measure(options: object, duration: number): Promise<RateFigures> {
  await autocannon({ ...options, duration: WARMUP_SECONDS });
  const result = await autocannon({ ...options, duration });
  return {
    requests_per_second: Math.round(result.requests.mean),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? 0
    : Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! * 10) / 10;

async function freshStore(backend: Backend) {
  if (backend === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'bench-alerts-'));
    return {
      env: { DATA_DIR: dir, DATABASE_URL: '' },
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_alerts_${randomBytes(5).toString('hex')}`;
  return {
    env: { DATA_DIR: '', DATABASE_URL: url, DATABASE_SCHEMA: schema },
    drop: () => dropSchema(url, schema),
  };
}

async function startCloud(backend: Backend, smsUrl: string) {
  const fresh = await freshStore(backend);
  const config = {
    // The caller's environment first, so a knob (AIOPS_CORRELATION_ENABLED=false...) can be compared.
    ...loadCloudConfig({
      ...process.env,
      ...fresh.env,
      CLOUD_RATE_LIMIT: 'false',
      NOTIFY_SMS_URL: smsUrl,
      LOG_LEVEL: 'warn',
    }),
    hashing: { memoryCost: 1024, timeCost: 1 },
  };
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    schema: config.databaseSchema,
  });
  const log = pino({ level: 'warn' });
  const services = createCloudServices(config, { store, clock: systemClock, newId, log });
  const app = await buildApp(config, { store, clock: systemClock, newId, log, services });
  services.notify.start();
  services.alerting.start();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    base,
    services,
    store,
    async stop() {
      await app.close();
      await services.notify.close();
      await services.alerting.close();
      await store.close();
      await fresh.drop();
    },
  };
}

async function signIn(cloud: Awaited<ReturnType<typeof startCloud>>) {
  const tenant = await cloud.services.tenancy.createTenant({
    slug: 'bench',
    name: 'Bench',
    tier: 'enterprise',
  });
  await cloud.services.tenancy.addUser(tenant.id, {
    email: 'ops@bench.test',
    password: PASSWORD,
    roles: ['tenant_admin'],
  });
  // Only the latency service pages anyone; the rate measures' P4 alerts have no policy and no recipient.
  await cloud.services.alerting.settings.policies.create(tenant.id, {
    name: 'Latency',
    is_default: false,
    match: { services: ['latency'], severities: [] },
    mode: 'parallel',
    skip_when_acknowledged: true,
    levels: [
      {
        targets: [
          { type: 'person', person: { name: 'On call', email: 'oncall@bench.test', phone: '+15550100' } },
        ],
        channels: ['sms'],
        timeout_minutes: null,
      },
    ],
  });
  const response = await fetch(`${cloud.base}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ops@bench.test', password: PASSWORD }),
  });
  const token = ((await response.json()) as { status: { access_token: string } }).status.access_token;
  return {
    tenantId: tenant.id,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  };
}

const ingestBody = (title: string, service: string, severity: string) =>
  JSON.stringify({ source: 'bench', severity, title, service, labels: { bench: 'alerts' } });

async function latency(base: string, headers: Record<string, string>, arrivals: Map<string, number>) {
  const answered = new Map<string, number>();
  for (let i = 0; i < LATENCY_ALERTS; i += 1) {
    const token = `bench-latency-${i}`;
    const response = await fetch(`${base}/api/v1/alerts/ingest`, {
      method: 'POST',
      headers,
      body: ingestBody(`Checkout down ${token}`, 'latency', 'P1'),
    });
    if (response.status === 201) answered.set(token, performance.now());
    await response.arrayBuffer();
    await sleep(LATENCY_GAP_MS);
  }
  const deadline = Date.now() + 30_000;
  while (arrivals.size < answered.size && Date.now() < deadline) await sleep(50);
  const delays = [...answered].flatMap(([token, at]) => {
    const arrived = arrivals.get(token);
    return arrived === undefined ? [] : [Math.max(0, arrived - at)];
  });
  const sorted = delays.sort((a, b) => a - b);
  return {
    figures: {
      count: sorted.length,
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      max: percentile(sorted, 100),
    },
    missing: answered.size - sorted.length,
    answered: answered.size,
  };
}

async function runBackend(backend: Backend, connections: number, duration: number): Promise<BackendReport> {
  const sms = await startSmsProvider();
  const cloud = await startCloud(backend, sms.url);
  try {
    const { tenantId, headers } = await signIn(cloud);
    const baseline = await measure({ url: `${cloud.base}/v1/auth/me`, headers, connections }, duration);
    let distinct = 0;
    const distinctRun = await measure(
      {
        url: `${cloud.base}/api/v1/alerts/ingest`,
        connections,
        requests: [
          {
            method: 'POST',
            headers,
            setupRequest: (request: object) => ({
              ...request,
              body: ingestBody(`Disk full ${++distinct}`, 'rate', 'P4'),
            }),
          },
        ],
      },
      duration,
    );
    const repeatedRun = await measure(
      {
        url: `${cloud.base}/api/v1/alerts/ingest`,
        method: 'POST',
        headers,
        connections,
        body: ingestBody('Same', 'rate', 'P4'),
      },
      duration,
    );
    const counts = await cloud.store.db
      .selectFrom('alerts')
      .select((eb) => [
        eb.fn.countAll<number>().as('alerts'),
        eb.fn.sum<number>('occurrences').as('occurrences'),
      ])
      .where('tenant_id', '=', tenantId)
      .where('title', '=', 'Same')
      .executeTakeFirstOrThrow();
    const opened = await cloud.store.db
      .selectFrom('alerts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('title', 'like', 'Disk full %')
      .executeTakeFirstOrThrow();
    const timed = await latency(cloud.base, headers, sms.arrivals);
    const problems = [
      ...(baseline.non2xx + baseline.errors > 0 ? ['baseline: non-2xx or errors'] : []),
      ...(distinctRun.non2xx + distinctRun.errors > 0
        ? [`distinct ingest: ${distinctRun.non2xx} non-2xx, ${distinctRun.errors} errors`]
        : []),
      ...(repeatedRun.non2xx + repeatedRun.errors > 0
        ? [`repeated ingest: ${repeatedRun.non2xx} non-2xx, ${repeatedRun.errors} errors`]
        : []),
      ...(Number(counts.alerts) !== 1 ? [`one fingerprint opened ${counts.alerts} alerts`] : []),
      ...(timed.missing > 0
        ? [`${timed.missing} of ${timed.answered} P1 alerts never reached the SMS provider`]
        : []),
      ...(timed.answered < LATENCY_ALERTS
        ? [`${LATENCY_ALERTS - timed.answered} P1 ingests were not 201`]
        : []),
    ];
    return {
      valid: problems.length === 0,
      problems,
      baseline_get: baseline,
      ingest_distinct: {
        ...distinctRun,
        share_of_baseline:
          Math.round((distinctRun.requests_per_second / baseline.requests_per_second) * 1000) / 1000,
        alerts_opened: Number(opened.n),
      },
      ingest_repeated: {
        ...repeatedRun,
        share_of_baseline:
          Math.round((repeatedRun.requests_per_second / baseline.requests_per_second) * 1000) / 1000,
        occurrences_counted: Number(counts.occurrences),
      },
      p1_to_first_sms_ms: timed.figures,
    };
  } finally {
    await cloud.stop();
    await sms.close();
  }
}

export async function runAlertsBench(options: {
  connections: number;
  duration: number;
  backend?: Backend | undefined;
}) {
  const machine = machineSampler();
  const backends: AlertsReport['backends'] = {};
  for (const backend of options.backend ? [options.backend] : ALERT_BACKENDS) {
    backends[backend] = await runBackend(backend, options.connections, options.duration);
  }
  const goals = judgeGoals(backends, [
    {
      measure: 'p1_to_first_sms_p99_ms',
      target: '< 2000',
      value: (r: BackendReport) => r.p1_to_first_sms_ms.p99,
      met: (value: number) => value < 2000,
    },
  ]);
  const report: AlertsReport = {
    valid: Object.values(backends).every((r) => r?.valid),
    machine: machine(),
    code: codeVersion(),
    settings: {
      connections: options.connections,
      duration_s: options.duration,
      latency_alerts: LATENCY_ALERTS,
    },
    backends,
    goals,
  };
  return report;
}
