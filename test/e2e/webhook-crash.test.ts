/**
 * Webhook delivery survives SIGKILL: while 4,000 events are appended, the standalone delivery
 * worker (`npm run webhook-worker`) is killed every 1–2 s and started again at once, at times with
 * a second one running beside it to contend for the lanes. When the killing stops and the last
 * worker has drained the queue, every event reached every subscription it matches, every delivery
 * succeeded, the attempt log is complete, and each endpoint got its events in append order.
 * Real processes, a real store on disk (and PostgreSQL when configured), real HTTP on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCloudConfig } from '../../cloud/config.ts';
import { openStore, type Store } from '../../cloud/db/index.ts';
import type { DomainEventRow } from '../../cloud/events/index.ts';
import { type CloudServices, createCloudServices } from '../../cloud/services.ts';
import type { WebhookInterface } from '../../cloud/webhooks/catalog.ts';
import type { WebhookSettingsInput } from '../../cloud/webhooks/subscriptions.ts';
import { systemClock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { exited, kill, waitFor } from '../support/processes.ts';
import { backends, cloudStoreEnv } from '../support/stores.ts';
import { startWebhookWorker, type WorkerProcess } from '../support/webhook-processes.ts';
import { createReceiver, type ReceivedRequest, type Receiver } from '../support/webhooks.ts';

/** Some 8,800 deliveries: every kill lands on a worker with requests in flight and lanes leased. */
const EVENTS = 4_000;
const EVENTS_PER_TRANSACTION = 100;
/** The pause between two appends: the events arrive over about 8 s, while workers die. */
const APPEND_GAP_MS = 150;
const MIN_KILLS = 10;
/** Killing stops once this share of the deliveries succeeded (and the events are all in). */
const CHAOS_UNTIL_DONE = 0.6;
const CHAOS_MAX_MS = 75_000;
const DRAIN_TIMEOUT_MS = 90_000;
/** On the flaky endpoint, every this-many-th delivery is refused with a 503 the first time. */
const FLAKY_EVERY = 20;

const TYPES = ['order.created', 'order.updated', 'order.completed', 'payment.processed', 'inventory.updated'];

interface Hook {
  path: string;
  iface: WebhookInterface;
  events: string[];
  /** The domain event types it must receive (an admin endpoint gets no stock sales). */
  receives: string[];
  settings?: WebhookSettingsInput;
  /** Answers 503 to the first attempt of some deliveries, so their retries come out of order. */
  flaky?: boolean;
}

// Admin endpoints allow ten attempts: an attempt cut short by a kill counts as one.
const ADMIN_SETTINGS: WebhookSettingsInput = { retry_policy: { max_attempts: 10, backoff: 'fixed' } };

const HOOKS: Hook[] = [
  {
    path: '/orders',
    iface: 'subscription',
    events: ['order.*'],
    receives: ['order.created', 'order.updated', 'order.completed'],
  },
  {
    path: '/money-and-stock',
    iface: 'subscription',
    events: ['payment.processed', 'inventory.*'],
    receives: ['payment.processed', 'inventory.updated'],
  },
  {
    path: '/everything',
    iface: 'admin',
    events: ['*'],
    receives: ['order.created', 'order.updated', 'order.completed', 'payment.processed'],
    settings: ADMIN_SETTINGS,
  },
  {
    path: '/flaky',
    iface: 'admin',
    events: ['order.completed', 'payment.*'],
    receives: ['order.completed', 'payment.processed'],
    settings: ADMIN_SETTINGS,
    flaky: true,
  },
];

function eventData(type: string, n: number) {
  const id = newId();
  if (type === 'payment.processed')
    return { id, order_id: newId(), method: 'card', amount: 10 + (n % 7), tip: 1, total: 11 + (n % 7) };
  if (type === 'inventory.updated')
    return {
      id,
      item_id: newId(),
      name: 'Buns',
      current_quantity: 100 - (n % 50),
      unit: 'each',
      reorder_level: 10,
      reorder_quantity: 50,
      change: -1,
      reason: 'sale',
    };
  return {
    id,
    number: String(n),
    order_type: 'takeout',
    status: type === 'order.completed' ? 'completed' : 'open',
    items: [{ id: newId(), menu_item_id: newId(), name: 'Burger', quantity: 1, unit_price: 9.5, total: 9.5 }],
    subtotal: 9.5,
    tax: 0.76,
    total: 10.26,
    created_at: new Date().toISOString(),
  };
}

function makeEvents(tenantId: string, locationId: string): DomainEventRow[] {
  return Array.from({ length: EVENTS }, (_, n) => {
    const type = TYPES[n % TYPES.length]!;
    const at = new Date().toISOString();
    return {
      id: newId(),
      tenant_id: tenantId,
      location_id: locationId,
      type,
      occurred_at: at,
      received_at: at,
      data: JSON.stringify(eventData(type, n)),
    };
  });
}

interface Rig {
  workerEnv: Record<string, string>;
  store: Store;
  services: CloudServices;
  tenantId: string;
  locationId: string;
  hookIds: Map<string, string>;
  receiver: Receiver;
  /** Requests the receiver answered with a 503 (by object identity). */
  refused: Set<ReceivedRequest>;
  dir: string;
}

function flakyAnswer(refused: Set<ReceivedRequest>) {
  const seen = new Set<string>();
  return (request: ReceivedRequest) => {
    if (request.path !== '/flaky') return { status: 200 };
    const delivery = String(request.headers['x-service-delivery']);
    if (seen.has(delivery)) return { status: 200 };
    seen.add(delivery);
    if (seen.size % FLAKY_EVERY !== 0) return { status: 200 };
    refused.add(request);
    return { status: 503 };
  };
}

/** A store as the cloud keeps it, with one tenant, its endpoints, and a receiver on loopback. */
async function createRig(backend: 'sqlite' | 'pg'): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-crash-'));
  const workerEnv: Record<string, string> = {
    ...(await cloudStoreEnv(backend, dir)),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: 'info',
  };
  const config = { ...loadCloudConfig(workerEnv), hashing: { memoryCost: 1024, timeCost: 1 } };
  const store = await openStore({
    dataDir: dir,
    databaseUrl: config.databaseUrl,
    schema: config.databaseSchema,
  });
  // This process appends events (the consumer writes the deliveries) but never sends: no start().
  const services = createCloudServices(config, {
    store,
    clock: systemClock,
    newId,
    log: pino({ level: 'silent' }),
  });
  const refused = new Set<ReceivedRequest>();
  const receiver = await createReceiver(flakyAnswer(refused));
  const tenant = await services.tenancy.createTenant({ slug: 'crash', name: 'Crash', tier: 'enterprise' });
  const brand = await services.tenancy.createGroup('brands', tenant.id, 'Brand');
  const region = await services.tenancy.createGroup('regions', tenant.id, 'Region');
  const location = await services.tenancy.createLocation(tenant.id, {
    name: 'Store',
    brand_id: brand.id,
    region_id: region.id,
  });
  const hookIds = new Map<string, string>();
  for (const hook of HOOKS) {
    const created = await services.webhooks.subscriptions.create(tenant.id, hook.iface, {
      url: receiver.url(hook.path),
      events: hook.events,
      secret: `whsec_${hook.path.slice(1)}_0123456789abcdef`,
      ...(hook.settings ? { settings: hook.settings } : {}),
    });
    hookIds.set(hook.path, created.id);
  }
  return {
    workerEnv,
    store,
    services,
    tenantId: tenant.id,
    locationId: location.id,
    hookIds,
    receiver,
    refused,
    dir,
  };
}

async function destroyRig(rig: Rig) {
  await rig.receiver.close();
  await rig.services.webhooks.close();
  await rig.store.close();
  rmSync(rig.dir, { recursive: true, force: true });
}

async function countDeliveries(rig: Rig) {
  const row = await rig.store.db
    .selectFrom('webhook_deliveries')
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.count<number>('next_attempt_at').as('due'),
      eb.fn.count<number>('in_flight_since').as('in_flight'),
    ])
    .where('tenant_id', '=', rig.tenantId)
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), due: Number(row.due), inFlight: Number(row.in_flight) };
}

/**
 * A refused first attempt is retried a minute later at the earliest, longer than this test runs;
 * the minute is skipped here instead (the workers run on the system clock). Only settled failures
 * are moved: one on the wire belongs to its worker.
 */
async function retriesDueNow(rig: Rig) {
  const now = new Date().toISOString();
  await rig.store.db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now })
    .where('tenant_id', '=', rig.tenantId)
    .where('status', '=', 'failed')
    .where('next_attempt_at', '>', now)
    .where('in_flight_since', 'is', null)
    .execute();
}

async function appendAll(rig: Rig, events: DomainEventRow[]) {
  for (let i = 0; i < events.length; i += EVENTS_PER_TRANSACTION) {
    const batch = events.slice(i, i + EVENTS_PER_TRANSACTION);
    await rig.store.db.transaction().execute((trx) => rig.services.events.append(trx, batch));
    await sleep(APPEND_GAP_MS);
  }
}

interface Chaos {
  kills: number;
  starts: number;
  /** Workers alive when the killing stopped: they drain what is left. */
  alive: WorkerProcess[];
  all: WorkerProcess[];
}

/**
 * Kills a worker every 1–2 s and starts another at once; every other pair of rounds two run side
 * by side, so a lane is contended by a live worker as well as waited out after a dead one.
 */
async function killWorkers(rig: Rig, chaos: Chaos, stop: () => Promise<boolean>) {
  const start = async () => {
    const worker = await startWebhookWorker(rig.workerEnv);
    chaos.starts += 1;
    chaos.alive.push(worker);
    chaos.all.push(worker);
  };
  await start();
  for (let round = 0; !(await stop()); round += 1) {
    await sleep(1000 + Math.random() * 1000);
    const [victim] = chaos.alive.splice(Math.floor(Math.random() * chaos.alive.length), 1);
    await kill(victim!.child);
    chaos.kills += 1;
    const wanted = round % 4 >= 2 ? 2 : 1;
    while (chaos.alive.length < wanted) await start();
  }
}

interface DeliveryFacts {
  id: string;
  webhook_id: string;
  event_id: string;
  status: string;
  attempt: number;
  next_attempt_at: string | null;
  in_flight_since: string | null;
}

async function readLog(rig: Rig) {
  const deliveries = (await rig.store.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'webhook_id', 'event_id', 'status', 'attempt', 'next_attempt_at', 'in_flight_since'])
    .where('tenant_id', '=', rig.tenantId)
    .execute()) as DeliveryFacts[];
  const attempts = await rig.store.db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', 'attempt', 'outcome'])
    .where('tenant_id', '=', rig.tenantId)
    .execute();
  const attemptsOf = new Map<string, Array<{ attempt: number; outcome: string }>>();
  for (const row of attempts) {
    const list = attemptsOf.get(row.delivery_id) ?? [];
    list.push({ attempt: Number(row.attempt), outcome: row.outcome });
    attemptsOf.set(row.delivery_id, list);
  }
  for (const list of attemptsOf.values()) list.sort((a, b) => a.attempt - b.attempt);
  return { deliveries, attemptsOf };
}

/** Attempt rows numbered 1..attempt without gaps or doubles, the last one a success. */
function logProblems(delivery: DeliveryFacts, logged: Array<{ attempt: number; outcome: string }>) {
  const numbers = logged.map((row) => row.attempt);
  const expected = Array.from({ length: delivery.attempt }, (_, i) => i + 1);
  const problems: string[] = [];
  if (numbers.join() !== expected.join())
    problems.push(`delivery ${delivery.id}: attempts [${numbers}] for attempt ${delivery.attempt}`);
  if (logged.at(-1)?.outcome !== 'success')
    problems.push(`delivery ${delivery.id}: last attempt ${logged.at(-1)?.outcome ?? 'missing'}`);
  return problems;
}

const eventIdOf = (request: ReceivedRequest) => (JSON.parse(request.body) as { id: string }).id;

/** What one endpoint got, checked against what it should have got, in append order. */
function checkHook(rig: Rig, hook: Hook, events: DomainEventRow[], log: Awaited<ReturnType<typeof readLog>>) {
  const hookId = rig.hookIds.get(hook.path)!;
  const expected = events.filter((event) => hook.receives.includes(event.type)).map((event) => event.id);
  const deliveries = log.deliveries.filter((row) => row.webhook_id === hookId);
  const byId = new Map(deliveries.map((row) => [row.id, row]));
  const requests = rig.receiver.received.filter((request) => request.path === hook.path);
  const problems: string[] = [];
  const requestsPerDelivery = new Map<string, number>();
  const accepted = new Map<string, number>();
  const firstArrivals: string[] = [];
  for (const request of requests) {
    const deliveryId = String(request.headers['x-service-delivery']);
    const eventId = eventIdOf(request);
    if (byId.get(deliveryId)?.event_id !== eventId)
      problems.push(`${hook.path}: request for delivery ${deliveryId} (event ${eventId}) not in the log`);
    requestsPerDelivery.set(deliveryId, (requestsPerDelivery.get(deliveryId) ?? 0) + 1);
    if (rig.refused.has(request)) continue;
    if (!accepted.has(eventId)) firstArrivals.push(eventId);
    accepted.set(eventId, (accepted.get(eventId) ?? 0) + 1);
  }
  for (const [deliveryId, count] of requestsPerDelivery) {
    const logged = log.attemptsOf.get(deliveryId)?.length ?? 0;
    if (count > logged)
      problems.push(`${hook.path}: delivery ${deliveryId} sent ${count}x, ${logged} logged`);
  }
  for (const delivery of deliveries)
    problems.push(...logProblems(delivery, log.attemptsOf.get(delivery.id) ?? []));
  const missing = expected.filter((id) => !accepted.has(id));
  const duplicates = [...accepted.values()].reduce((sum, n) => sum + n - 1, 0);
  const inOrder = firstArrivals.join() === expected.join();
  return {
    path: hook.path,
    expected: expected.length,
    deliveries: deliveries.length,
    deliveredEvents: [...new Set(deliveries.map((row) => row.event_id))].sort(),
    expectedSorted: [...expected].sort(),
    requests: requests.length,
    refused: requests.filter((request) => rig.refused.has(request)).length,
    missing: missing.length,
    duplicates,
    inOrder,
    problems,
  };
}

interface Phases {
  chaosSeconds: number;
  drainSeconds: number;
  leftAtChaosEnd: Awaited<ReturnType<typeof countDeliveries>>;
}

/**
 * Appends every event while workers are killed; once the events are in, at least MIN_KILLS kills
 * happened and most deliveries succeeded (or time is up), the workers left alive drain the rest.
 */
async function deliverUnderChaos(rig: Rig, events: DomainEventRow[], chaos: Chaos): Promise<Phases> {
  const started = performance.now();
  const expectedTotal = HOOKS.reduce(
    (sum, hook) => sum + events.filter((event) => hook.receives.includes(event.type)).length,
    0,
  );
  let appended = false;
  const appending = appendAll(rig, events).then(() => {
    appended = true;
  });
  const chaosTimeout = started + CHAOS_MAX_MS;
  await killWorkers(rig, chaos, async () => {
    // The kills come first: on a loaded machine a worker's start takes seconds, and the time
    // limit alone once ended the chaos after 6 of them.
    if (!appended || chaos.kills < MIN_KILLS) return false;
    if (performance.now() > chaosTimeout) return true;
    const { total, due } = await countDeliveries(rig);
    return (total - due) / expectedTotal >= CHAOS_UNTIL_DONE;
  });
  await appending;
  const chaosSeconds = (performance.now() - started) / 1000;
  const leftAtChaosEnd = await countDeliveries(rig);
  await waitFor(
    'every delivery settled',
    async () => ((await countDeliveries(rig)).due === 0 ? true : undefined),
    DRAIN_TIMEOUT_MS,
  );
  return { chaosSeconds, drainSeconds: (performance.now() - started) / 1000 - chaosSeconds, leftAtChaosEnd };
}

function summary(backend: string, log: Awaited<ReturnType<typeof readLog>>, chaos: Chaos, phases: Phases) {
  const outcomes = new Map<string, number>();
  for (const list of log.attemptsOf.values())
    for (const row of list) outcomes.set(row.outcome, (outcomes.get(row.outcome) ?? 0) + 1);
  const warnings = chaos.all.flatMap((worker) => worker.warnings);
  const { chaosSeconds, drainSeconds, leftAtChaosEnd: left } = phases;
  return (
    `[webhook-crash ${backend}] ${EVENTS} events, ${log.deliveries.length} deliveries; ` +
    `${chaos.kills} kills, ${chaos.starts} starts; chaos ${chaosSeconds.toFixed(1)} s ` +
    `(left then: ${left.due} due, ${left.inFlight} in flight), drain ${drainSeconds.toFixed(1)} s; ` +
    `attempts ${JSON.stringify(Object.fromEntries(outcomes))}; worker warnings ${warnings.length}` +
    `${warnings.length ? ` (first: ${warnings[0]})` : ''}`
  );
}

const hookLine = (h: ReturnType<typeof checkHook>) =>
  `  ${h.path}: ${h.expected} events, ${h.deliveries} deliveries, ${h.requests} requests ` +
  `(${h.refused} refused), ${h.duplicates} duplicates, ${h.missing} missing, ` +
  `first arrivals in append order: ${h.inOrder}`;

describe.each(backends)('webhook delivery survives SIGKILL (%s)', (backend) => {
  let rig: Rig | undefined;
  let chaos: Chaos = { kills: 0, starts: 0, alive: [], all: [] };
  afterEach(async () => {
    for (const worker of chaos.all) await kill(worker.child);
    chaos = { kills: 0, starts: 0, alive: [], all: [] };
    if (rig) await destroyRig(rig);
    rig = undefined;
  });

  it('delivers every event to every matching endpoint, logs every attempt, keeps event order', async () => {
    rig = await createRig(backend);
    const events = makeEvents(rig.tenantId, rig.locationId);
    const retries = setInterval(() => void retriesDueNow(rig!).catch(() => undefined), 500);
    let phases: Phases;
    try {
      phases = await deliverUnderChaos(rig, events, chaos);
    } finally {
      clearInterval(retries);
    }
    // The last workers stop as a deployment stops them, and say so.
    for (const worker of chaos.alive) {
      worker.child.kill('SIGTERM');
      await exited(worker.child);
      expect(worker.child.exitCode).toBe(0);
    }

    const log = await readLog(rig);
    const hooks = HOOKS.map((hook) => checkHook(rig!, hook, events, log));
    console.info([summary(backend, log, chaos, phases), ...hooks.map(hookLine)].join('\n'));
    expect(log.deliveries.length).toBe(hooks.reduce((sum, hook) => sum + hook.expected, 0));
    expect(log.deliveries.filter((row) => row.status !== 'success').slice(0, 5)).toEqual([]);
    expect(log.deliveries.filter((row) => row.in_flight_since !== null).slice(0, 5)).toEqual([]);
    for (const hook of hooks) {
      expect(hook.deliveredEvents, hook.path).toEqual(hook.expectedSorted);
      expect(hook.missing, hook.path).toBe(0);
      expect(hook.problems.slice(0, 5), hook.path).toEqual([]);
    }
    // Retries come out of order by design: the flaky endpoint is checked for completeness only.
    for (const hook of hooks.filter((h) => !HOOKS.find((spec) => spec.path === h.path)!.flaky))
      expect(hook.inOrder, `${hook.path} first arrivals in append order`).toBe(true);
    expect(hooks.find((h) => h.path === '/flaky')!.refused).toBeGreaterThan(0);
    expect(chaos.kills).toBeGreaterThanOrEqual(MIN_KILLS);
  }, 240_000);
});
