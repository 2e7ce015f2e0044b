import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleFeed } from '../../../cloud/cockpit/feed.ts';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { createDialect } from '../../../cloud/db/dialect/pg.ts';
import { openStore, type Store } from '../../../cloud/db/index.ts';
import { createNotifyService, type NotifyService } from '../../../cloud/notify/index.ts';
import { systemClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { entryArgs } from '../../support/entries.ts';
import { kill, waitFor } from '../../support/processes.ts';
import { backends } from '../../support/stores.ts';
import { createSmtpSink, notificationRequest } from './support.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** cloud/notify-worker.ts as node itself (see entryArgs), so SIGKILL hits the worker. */
function startWorker(env: Record<string, string>) {
  const child = spawn(process.execPath, entryArgs('cloud/notify-worker.ts'), {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  return new Promise<ChildProcess>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the notify worker did not start\n${stderr}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`the notify worker exited (${code})\n${stderr}`)));
    let pending = '';
    let running = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      if (running || !pending.includes('notify worker running')) return;
      running = true;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(child);
    });
  });
}

const TOTAL = 12;
const CONCURRENCY = 4;

describe.each(backends)('a notify worker killed mid-delivery on %s', (backend) => {
  let dir: string;
  let schema: string | undefined;
  let store: Store;
  let notify: NotifyService;
  let smtp: Awaited<ReturnType<typeof createSmtpSink>>;
  let holding = true;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'notify-crash-'));
    schema = backend === 'pg' ? `ncrash_${randomBytes(5).toString('hex')}` : undefined;
    smtp = await createSmtpSink({ hold: () => holding });
    const databaseUrl = schema ? process.env.TEST_DATABASE_URL : undefined;
    store = await openStore({ dataDir: dir, databaseUrl, schema });
    // This process only enqueues; the children send.
    notify = createNotifyService({
      store,
      clock: systemClock,
      newId,
      log: pino({ level: 'silent' }),
      options: { ...loadCloudConfig({}).notify, runWorker: false },
      consoleFeed: createConsoleFeed(),
    });
  });
  afterAll(async () => {
    for (const child of children) await kill(child);
    await notify.close();
    await store.close();
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
    if (!schema) return;
    const admin = new Kysely<unknown>({ dialect: createDialect(process.env.TEST_DATABASE_URL!) });
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
    await admin.destroy();
  });

  it('loses nothing: the next worker marks the cut-off attempts interrupted and sends them again', async () => {
    const env = {
      DATA_DIR: dir,
      LOG_LEVEL: 'info',
      NOTIFY_SMTP_URL: smtp.url,
      NOTIFY_EMAIL_FROM: 'alerts@ops.test',
      NOTIFY_CONCURRENCY: String(CONCURRENCY),
      NOTIFY_POLL_MS: '50',
      NOTIFY_SEND_TIMEOUT_MS: '3000',
      NOTIFY_LEASE_MS: '4000',
      ...(schema ? { DATABASE_URL: process.env.TEST_DATABASE_URL!, DATABASE_SCHEMA: schema } : {}),
    };
    const tenantId = newId();
    const ids = await notify.enqueue(
      store.db,
      tenantId,
      Array.from({ length: TOTAL }, () => notificationRequest({ channel: 'email' })),
    );

    const first = await startWorker(env);
    children.push(first);
    await waitFor('the first messages on the wire', () =>
      smtp.held.length >= CONCURRENCY ? true : undefined,
    );
    await kill(first, 'SIGKILL');
    const cutOff = smtp.held.map((mail) => mail.headers['message-id']);
    expect(smtp.messages).toEqual([]);
    const inFlight = await store.db
      .selectFrom('notification_attempts')
      .select('notification_id')
      .where('outcome', '=', 'in_flight')
      .execute();
    expect(inFlight).toHaveLength(CONCURRENCY);

    holding = false;
    const second = await startWorker(env);
    children.push(second);
    await waitFor(
      'every notification delivered',
      async () => {
        const page = await notify.list(tenantId, { status: 'delivered' }, { limit: 50 });
        return page.items.length === TOTAL ? true : undefined;
      },
      30_000,
    );

    // Every notification reached the server; the cut-off ones twice, with the same Message-ID.
    const delivered = smtp.messages.map((mail) => mail.headers['message-id']);
    expect([...delivered].sort()).toEqual(ids.map((id) => `<${id}@ops.test>`).sort());
    for (const messageId of cutOff) expect(delivered).toContain(messageId);

    const page = await notify.list(tenantId, {}, { limit: 50 });
    const interrupted = page.items.filter((item) => item.attempt_count === 2);
    expect(interrupted.map((item) => `<${item.id}@ops.test>`).sort()).toEqual([...cutOff].sort());
    for (const item of interrupted) {
      expect(item.attempts.map((attempt) => attempt.outcome)).toEqual(['interrupted', 'delivered']);
    }
    for (const item of page.items.filter((entry) => entry.attempt_count === 1)) {
      expect(item.attempts.map((attempt) => attempt.outcome)).toEqual(['delivered']);
    }
    await kill(second, 'SIGTERM');
  }, 90_000);
});
