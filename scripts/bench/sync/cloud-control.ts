/**
 * The cloud child's second port (see control.ts): stores for each measure, head office's writes, and
 * counts of what the cloud holds, read through a store connection of its own so that they never
 * share a transaction with the gateway's.
 */
import Fastify from 'fastify';
import type { Store } from '../../../cloud/db/index.ts';
import type { CloudServices } from '../../../cloud/services.ts';
import { isSyncTable } from '../../../shared/sync/registry.ts';
import { writeEdits, writeFeed } from './cloud-writes.ts';
import type { BenchStore, CloudState, EditsRequest } from './control.ts';
import { startProfile } from './profile.ts';

export interface ControlDeps {
  services: CloudServices;
  /** A second connection to the cloud's store, for counting. */
  observer: Store;
  tenantId: string;
  brandId: string;
  regionId: string;
}

type Params = { Params: { location_id: string } };

async function createStore(deps: ControlDeps, n: number): Promise<BenchStore> {
  const { tenancy, sync } = deps.services;
  const location = await tenancy.createLocation(deps.tenantId, {
    name: `Bench store ${n}`,
    brand_id: deps.brandId,
    region_id: deps.regionId,
  });
  const { credential } = await sync.provisionAppliance(deps.tenantId, { location_id: location.id });
  return { tenant_id: deps.tenantId, location_id: location.id, credential };
}

async function stateOf(deps: ControlDeps, locationId: string): Promise<CloudState> {
  const { db } = deps.observer;
  const scope = (table: 'sync_rows' | 'sync_changes' | 'sync_conflicts' | 'domain_events') =>
    db.selectFrom(table).where('tenant_id', '=', deps.tenantId).where('location_id', '=', locationId);
  const count = async (table: 'sync_changes' | 'sync_conflicts' | 'domain_events') =>
    Number(
      (
        await scope(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const rows = await scope('sync_rows')
    .where('deleted', '=', 0)
    .select((eb) => ['table_name', eb.fn.countAll().as('n')])
    .groupBy('table_name')
    .execute();
  const status = await deps.services.sync.status(deps.tenantId, locationId);
  return {
    rows: Object.fromEntries(rows.map((row) => [row.table_name, Number(row.n)])),
    changes: await count('sync_changes'),
    conflicts: await count('sync_conflicts'),
    events: await count('domain_events'),
    feed_seq: status.feed_seq,
    pulled_cursor: status.pulled_cursor,
  };
}

/** Listens on a free loopback port; answers JSON, and 500 with the message when something fails. */
export async function startControl(deps: ControlDeps) {
  const app = Fastify({ logger: false });
  const { sync } = deps.services;
  const scope = (locationId: string) => ({ tenantId: deps.tenantId, locationId });
  let stores = 0;
  let stopProfile: ((file: string) => Promise<void>) | undefined;

  app.post('/stores', async () => createStore(deps, ++stores));
  app.post<Params & { Body: { count: number } }>('/stores/:location_id/feed', async (request) =>
    writeFeed(sync, scope(request.params.location_id), request.body.count),
  );
  app.post<Params & { Body: EditsRequest }>('/stores/:location_id/edits', async (request) =>
    writeEdits(sync, scope(request.params.location_id), request.body),
  );
  app.get<Params>('/stores/:location_id/state', async (request) => stateOf(deps, request.params.location_id));
  app.get<{ Params: { location_id: string; table: string } }>(
    '/stores/:location_id/rows/:table',
    async (request, reply) => {
      const { location_id, table } = request.params;
      if (!isSyncTable(table)) return reply.code(404).send({ error: `${table} is not synced` });
      const rows = await sync.rows(deps.tenantId, location_id, table);
      return { rows: rows.map((row) => ({ row_id: row.row_id, version: row.version, fields: row.fields })) };
    },
  );
  app.post('/profile/start', async () => {
    stopProfile ??= await startProfile();
    return { started: true };
  });
  app.post<{ Body: { file: string } }>('/profile/stop', async (request, reply) => {
    if (!stopProfile) return reply.code(409).send({ error: 'not profiling' });
    await stopProfile(request.body.file);
    stopProfile = undefined;
    return { file: request.body.file };
  });

  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, close: () => app.close() };
}
