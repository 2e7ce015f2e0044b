/**
 * The store's side of sync: the worker that pushes the local change log to the cloud and pulls the
 * cloud's changes back (with its replica of synced rows), and the sync status the kiosk shows and
 * /v1/sync/status answers.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Histogram, type Registry } from 'prom-client';
import type { Clock } from '../../shared/clock.ts';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import type { ApplianceConfig } from '../config.ts';
import type { ApplianceDatabase, ChangeLog } from '../db/index.ts';
import { createSyncClient } from './client.ts';
import { createReplica, type LandedHooks } from './replica.ts';
import { createSyncWorker, type SyncLogger, type SyncWorker, type SyncWorkerOptions } from './worker.ts';

export const DEFAULT_WORKER_OPTIONS: SyncWorkerOptions = {
  watchIntervalMs: 100,
  debounceMs: 50,
  schedule: '* * * * *',
  minBackoffMs: 1000,
  maxBackoffMs: 60_000,
  waitSeconds: 25,
};

/**
 * The appliance's sync: undefined when the cloud's URL or this appliance's credential is not set.
 * `landed` are the store's reactions to rows the cloud changed (a flow wires them: sync knows no
 * other module).
 */
export function createApplianceSync(
  config: ApplianceConfig,
  deps: { db: ApplianceDatabase; changes: ChangeLog; clock: Clock; landed?: LandedHooks | undefined },
  observability: { registry?: Registry | undefined; log?: SyncLogger | undefined } = {},
  workerOptions: Partial<SyncWorkerOptions> = {},
): SyncWorker | undefined {
  if (!config.cloudUrl || !config.sync.credential) return undefined;
  const latency = new Histogram({
    name: 'sync_latency_seconds',
    help: 'From a change being written at the store to the cloud answering it',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
    registers: observability.registry ? [observability.registry] : [],
  });
  const replica = createReplica(deps.db, deps.changes.docClientId, deps.landed, observability.log);
  const client = createSyncClient(
    deps.db,
    replica,
    {
      clock: deps.clock,
      observe: (stamp) => deps.changes.observe(stamp),
      onAcknowledged: (ms) => latency.observe(Math.max(0, ms) / 1000),
    },
    {
      cloudUrl: config.cloudUrl,
      credential: config.sync.credential,
      batchSize: config.sync.batchSize,
      maxInFlight: config.sync.maxInFlight,
      pullLimit: 1000,
      requestTimeoutMs: 30_000,
    },
  );
  return createSyncWorker(
    deps.db,
    client,
    { ...DEFAULT_WORKER_OPTIONS, schedule: config.sync.schedule, ...workerOptions },
    observability,
  );
}

export const SyncStatusSchema = Type.Object({
  configured: Type.Boolean({ description: 'CLOUD_URL and APPLIANCE_CLOUD_CREDENTIAL are set' }),
  online: Type.Boolean({ description: 'The last round reached the cloud' }),
  queue_depth: Type.Integer({ description: 'Changes the cloud has not answered yet' }),
  oldest_pending_at: Type.Union([Type.String(), Type.Null()]),
  oldest_pending_age_seconds: Type.Integer(),
  last_push_at: Type.Union([Type.String(), Type.Null()]),
  last_pull_at: Type.Union([Type.String(), Type.Null()]),
  last_success_at: Type.Union([Type.String(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  conflicts: Type.Integer({ description: 'Changes of this store the cloud settled in its own favour' }),
  rejected: Type.Integer(),
  cursor: Type.Integer(),
});

/** What `GET /v1/sync/status` answers, read fresh on each call (the kiosk's feed calls it each second). */
export function createSyncStatus(db: ApplianceDatabase, worker: SyncWorker | undefined, clock: Clock) {
  const queue = db.prepare(
    'select count(*) as n, min(occurred_at) as oldest from outbox where pushed_at is null',
  );
  const state = db.prepare('select * from sync_state where id = 1');
  return (): SyncStatus => {
    const { n, oldest } = queue.get() as { n: number; oldest: string | null };
    const s = state.get() as Record<string, string | number | null>;
    const age = oldest ? Math.max(0, Math.floor((clock.now().getTime() - Date.parse(oldest)) / 1000)) : 0;
    return {
      configured: worker !== undefined,
      online: worker?.online ?? false,
      queue_depth: n,
      oldest_pending_at: oldest,
      oldest_pending_age_seconds: age,
      last_push_at: s.last_push_at as string | null,
      last_pull_at: s.last_pull_at as string | null,
      last_success_at: s.last_success_at as string | null,
      last_error: s.last_error as string | null,
      conflicts: Number(s.conflicts),
      rejected: Number(s.rejected),
      cursor: Number(s.cursor),
    };
  };
}

export type SyncStatus = Static<typeof SyncStatusSchema>;

/** `GET /v1/sync/status` for the kiosk; `POST /v1/sync/now` runs a round and answers with the status. */
export async function applianceSyncRoutes(
  app: FastifyInstance,
  opts: { db: ApplianceDatabase; worker: SyncWorker | undefined; clock: Clock },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const doc = { tags: ['sync'], security: [{ bearer: [] }] };
  const status = createSyncStatus(opts.db, opts.worker, opts.clock);

  r.get(
    '/status',
    {
      onRequest: app.authenticate(),
      schema: {
        ...doc,
        summary: 'Sync with the cloud: online, queue depth and age, last push and pull, conflicts',
        response: { 200: Envelope(SyncStatusSchema), ...errorResponses(401) },
      },
    },
    async (request) => envelope(request.id, status()),
  );

  r.post(
    '/now',
    {
      onRequest: app.authenticate(),
      schema: {
        ...doc,
        summary: 'Run a sync round now and answer when it ends',
        response: { 200: Envelope(SyncStatusSchema), ...errorResponses(401, 409) },
      },
    },
    async (request) => {
      await opts.worker?.syncNow();
      return envelope(request.id, status());
    },
  );
}
export type { SyncRound } from './client.ts';
export type { HookedTable, LandedHook, LandedHooks } from './replica.ts';
export type { SyncWorker, SyncWorkerOptions } from './worker.ts';
