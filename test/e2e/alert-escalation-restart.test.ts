/**
 * Escalation survives SIGKILL and a second replica. A real cloud process (cloud/main.ts) runs the
 * escalation and notify workers against a real store; a real SMS provider on loopback receives the
 * pages. Killed between levels and started again, the cloud goes on escalating, each level paged
 * exactly once; with two cloud processes on one PostgreSQL schema, no escalation step runs twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCloudConfig } from '../../cloud/config.ts';
import { openStore, type Store } from '../../cloud/db/index.ts';
import { createCloudServices } from '../../cloud/services.ts';
import { systemClock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { kill, type Started, startProcess, waitFor } from '../support/processes.ts';
import { backends, cloudStoreEnv } from '../support/stores.ts';

const PASSWORD = 'correct-horse-battery';
/** 3 s per level, the shortest a policy takes: a kill lands between levels all the same. */
const LEVEL_MINUTES = 0.05;
const LEVEL_MS = LEVEL_MINUTES * 60_000;

interface Sms {
  to: string;
  reference: string;
}

async function smsProvider() {
  const received: Sms[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const parsed = JSON.parse(body) as Sms;
      received.push({ to: parsed.to, reference: parsed.reference });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: `sms-${received.length}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const phoneOf = (level: number, alert = 0) => `+1555${String(alert).padStart(3, '0')}${level}00`;

function policy(levels: number, alerts = 1) {
  return {
    name: 'Restart test',
    is_default: true,
    mode: 'parallel' as const,
    skip_when_acknowledged: true,
    levels: Array.from({ length: levels }, (_, index) => ({
      targets: Array.from({ length: alerts }, (_, a) => ({
        type: 'person' as const,
        person: {
          name: `L${index + 1}-${a}`,
          email: `l${index + 1}-${a}@example.com`,
          phone: phoneOf(index + 1, a),
        },
      })),
      channels: ['sms' as const],
      timeout_minutes: index === levels - 1 ? null : LEVEL_MINUTES,
    })),
  };
}

describe.each(backends)('alert escalation across cloud restarts on %s', (backend) => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A store with a tenant, an admin and the policy, made beside the cloud processes. */
  async function rig(levels: number, alerts = 1) {
    const dataDir = mkdtempSync(join(tmpdir(), 'alert-restart-'));
    closers.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const provider = await smsProvider();
    closers.push(provider.close);
    const env: Record<string, string> = {
      ...(await cloudStoreEnv(backend, dataDir)),
      LOG_LEVEL: 'info',
      CLOUD_RATE_LIMIT: 'false',
      ALERTING_POLL_MS: '100',
      NOTIFY_POLL_MS: '100',
      NOTIFY_SMS_URL: provider.url,
      CLOUD_PASSWORD_HASH_KIB: '1024',
      CLOUD_PASSWORD_HASH_PASSES: '1',
    };
    const config = { ...loadCloudConfig(env), logLevel: 'silent' as const };
    const store: Store = await openStore({
      dataDir,
      databaseUrl: config.databaseUrl,
      schema: config.databaseSchema,
    });
    try {
      const services = createCloudServices(config, {
        store,
        clock: systemClock,
        newId,
        log: pino({ level: 'silent' }),
      });
      const tenant = await services.tenancy.createTenant({ slug: 'acme', name: 'Acme', tier: 'enterprise' });
      await services.tenancy.addUser(tenant.id, {
        email: 'ops@acme.test',
        password: PASSWORD,
        roles: ['tenant_admin'],
      });
      await services.alerting.settings.policies.create(tenant.id, policy(levels, alerts));
      return { env, provider, tenantId: tenant.id, dataDir };
    } finally {
      await store.close();
    }
  }

  /** A cloud process whose info lines are kept (the escalation steps it ran). */
  async function cloud(env: Record<string, string>) {
    const started: Started = await startProcess(
      'cloud/main.ts',
      { ...env, CLOUD_PORT: '0' },
      /cloud listening/,
    );
    const lines: string[] = [];
    let pending = '';
    started.child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      lines.push(...parts.filter((line) => line.includes('escalation step')));
    });
    closers.push(() => kill(started.child));
    const base = `http://127.0.0.1:${started.port}`;
    const login = await fetch(`${base}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@acme.test', password: PASSWORD }),
    });
    const token = ((await login.json()) as { status: { access_token: string } }).status.access_token;
    const ingest = async (title: string) => {
      const response = await fetch(`${base}/api/v1/alerts/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ source: 'e2e', severity: 'P1', title, service: 'checkout' }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { data: { id: string } }).data.id;
    };
    return { child: started.child, lines, ingest };
  }

  const pagesTo = (received: Sms[], phone: string) =>
    new Set(received.filter((sms) => sms.to === phone).map((sms) => sms.reference)).size;

  it('goes on escalating after SIGKILL, each level paged exactly once', { timeout: 180_000 }, async () => {
    const LEVELS = 4;
    const { env, provider } = await rig(LEVELS);
    let process = await cloud(env);
    await process.ingest('Checkout down');
    for (let level = 1; level <= LEVELS; level += 1) {
      await waitFor(
        `level ${level} paged`,
        () => (pagesTo(provider.received, phoneOf(level)) > 0 ? true : undefined),
        60_000,
      );
      if (level === LEVELS) break;
      // Killed mid-escalation: level `level` paged, the next one pending; down past its time-out.
      await kill(process.child);
      await sleep(level === 1 ? LEVEL_MS + 1_000 : 1_000);
      process = await cloud(env);
    }
    // Nothing more comes: the last level has no time-out.
    await sleep(3_000);
    for (let level = 1; level <= LEVELS; level += 1) {
      expect(pagesTo(provider.received, phoneOf(level)), `level ${level}`).toBe(1);
    }
    expect(provider.received.every((sms) => /^\+1555000[1-4]00$/.test(sms.to))).toBe(true);
  });

  it.runIf(backend === 'pg')(
    'with two cloud processes on one schema, runs each escalation step once',
    { timeout: 180_000 },
    async () => {
      const ALERTS = 10;
      const LEVELS = 3;
      const { env, provider } = await rig(LEVELS, 1);
      const first = await cloud(env);
      const second = await cloud(env);
      const ids: string[] = [];
      for (let i = 0; i < ALERTS; i += 1) ids.push(await (i % 2 === 0 ? first : second).ingest(`Alert ${i}`));
      const expected = ALERTS * LEVELS;
      await waitFor(
        'every level of every alert paged',
        () => (new Set(provider.received.map((sms) => sms.reference)).size >= expected ? true : undefined),
        90_000,
      );
      await sleep(2_000);
      // Steps run: levels 2 and 3 of each alert, each by exactly one of the two processes.
      const ran = [...first.lines, ...second.lines]
        .map((line) => JSON.parse(line) as { msg: string; alertId: string; level: number })
        .filter((entry) => entry.msg === 'escalation step notified');
      const perStep = new Map<string, number>();
      for (const entry of ran)
        perStep.set(
          `${entry.alertId}:${entry.level}`,
          (perStep.get(`${entry.alertId}:${entry.level}`) ?? 0) + 1,
        );
      expect(perStep.size).toBe(ALERTS * (LEVELS - 1));
      expect([...perStep.values()].every((count) => count === 1)).toBe(true);
      expect(new Set(provider.received.map((sms) => sms.reference)).size).toBe(expected);
      // Both replicas took part.
      expect(first.lines.length).toBeGreaterThan(0);
      expect(second.lines.length).toBeGreaterThan(0);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    },
  );
});
