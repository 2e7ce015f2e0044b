/**
 * The drain's floor: the rows the cloud ended with (sync_rows, sync_changes, domain_events) for the
 * drained store's outbox, inserted straight into a fresh cloud store of the same backend through its
 * Kysely store (openStore), one transaction per push-sized batch, one at a time. Building the rows
 * (JSON, digests) is done beforehand and not timed: this is what the database alone costs.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApplianceDatabase } from '../../../appliance/db/index.ts';
import { type Db, openStore } from '../../../cloud/db/index.ts';
import type { DomainEventRow } from '../../../cloud/events/index.ts';
import { rowKey } from '../../../cloud/sync/apply.ts';
import type { SyncChangeRow, SyncRowRow } from '../../../cloud/sync/tables.ts';
import { digestOf } from '../../../cloud/sync/validate.ts';
import type { Change } from '../../../shared/sync/protocol.ts';
import { round } from '../lib/load.ts';
import type { BenchAppliance } from './appliance.ts';
import type { Backend } from './observe.ts';
import { dropSchema } from './pg.ts';

export interface BaselineMeasurement {
  records: number;
  transactions: number;
  seconds: number;
  records_per_sec: number;
}

interface OutboxRow {
  seq: number;
  change_id: string;
  table_name: string;
  row_id: string;
  operation: Change['op'];
  row_version: number;
  base_version: number;
  hlc: string;
  fields: string | null;
  doc: string | null;
}

interface BatchRows {
  rows: SyncRowRow[];
  changes: SyncChangeRow[];
  events: DomainEventRow[];
}

// Rows are read and built this many batches at a time, between timed stretches.
const BATCHES_PER_READ = 50;

/** The change as the appliance sent it, for the cloud's digest of it. */
const asChange = (row: OutboxRow): Change => ({
  change_id: row.change_id,
  table: row.table_name,
  row_id: row.row_id,
  op: row.operation,
  base_version: row.base_version,
  version: row.row_version,
  hlc: row.hlc,
  fields: row.fields === null ? null : (JSON.parse(row.fields) as Record<string, unknown>),
  ...(row.doc !== null ? { doc: row.doc } : {}),
});

function eventOf(
  row: OutboxRow,
  scope: { tenantId: string; locationId: string },
  at: string,
): DomainEventRow {
  const fields = JSON.parse(row.fields ?? '{}') as {
    id: string;
    type: string;
    occurred_at: string;
    data: string;
  };
  const { tenantId: tenant_id, locationId: location_id } = scope;
  return {
    id: fields.id,
    tenant_id,
    location_id,
    type: fields.type,
    occurred_at: fields.occurred_at,
    data: fields.data,
    received_at: at,
  };
}

/** What the cloud writes for one batch, as push.ts builds it: a row per key, a change per row, events. */
function batchRows(batch: OutboxRow[], scope: { tenantId: string; locationId: string }): BatchRows {
  const at = new Date().toISOString();
  const { tenantId: tenant_id, locationId: location_id } = scope;
  const rows = new Map<string, SyncRowRow>();
  const result: BatchRows = { rows: [], changes: [], events: [] };
  for (const row of batch) {
    const key = rowKey(row.table_name, row.row_id);
    const change = asChange(row);
    const digest = digestOf(change);
    result.changes.push({
      tenant_id,
      location_id,
      change_id: row.change_id,
      row_key: key,
      digest,
      status: 'applied',
      reason: null,
      received_at: at,
    });
    if (row.table_name === 'events') {
      result.events.push(eventOf(row, scope, at));
      continue;
    }
    const fields = change.fields === null ? null : JSON.stringify(change.fields);
    rows.set(key, {
      tenant_id,
      location_id,
      row_key: key,
      table_name: row.table_name,
      row_id: row.row_id,
      version: row.row_version,
      deleted: row.operation === 'delete' ? 1 : 0,
      hlc: row.hlc,
      fields,
      doc: row.doc,
      updated_at: at,
    });
  }
  result.rows = [...rows.values()];
  return result;
}

async function insertBatch(trx: Db, batch: BatchRows) {
  if (batch.rows.length > 0) await trx.insertInto('sync_rows').values(batch.rows).execute();
  if (batch.changes.length > 0) await trx.insertInto('sync_changes').values(batch.changes).execute();
  if (batch.events.length > 0) await trx.insertInto('domain_events').values(batch.events).execute();
}

async function freshStore(backend: Backend, databaseUrl: string) {
  if (backend === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'bench-sync-raw-'));
    const store = await openStore({ dataDir: dir });
    return { store, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const schema = `bench_sync_raw_${randomBytes(5).toString('hex')}`;
  const store = await openStore({ dataDir: '', databaseUrl, schema });
  return { store, drop: () => dropSchema(databaseUrl, schema) };
}

function readBatches(db: ApplianceDatabase, after: number, batchSize: number) {
  const rows = db
    .prepare('select * from outbox where seq > ? order by seq limit ?')
    .all(after, batchSize * BATCHES_PER_READ) as OutboxRow[];
  const batches: OutboxRow[][] = [];
  for (let i = 0; i < rows.length; i += batchSize) batches.push(rows.slice(i, i + batchSize));
  return { batches, last: rows.at(-1)?.seq };
}

export async function measureRawBaseline(
  backend: Backend,
  app: BenchAppliance,
  databaseUrl: string,
): Promise<BaselineMeasurement> {
  const { store, drop } = await freshStore(backend, databaseUrl);
  const scope = { tenantId: app.store.tenant_id, locationId: app.store.location_id };
  const totals = { records: 0, transactions: 0, ms: 0 };
  try {
    for (let after = 0; ; ) {
      const { batches, last } = readBatches(app.db, after, app.config.sync.batchSize);
      if (last === undefined) break;
      const built = batches.map((batch) => batchRows(batch, scope));
      const started = performance.now();
      for (const batch of built) await store.db.transaction().execute((trx) => insertBatch(trx, batch));
      totals.ms += performance.now() - started;
      totals.records += batches.reduce((sum, batch) => sum + batch.length, 0);
      totals.transactions += batches.length;
      after = last;
    }
  } finally {
    await store.close();
    await drop();
  }
  const seconds = totals.ms / 1000;
  return {
    records: totals.records,
    transactions: totals.transactions,
    seconds: round(seconds, 2),
    records_per_sec: round(totals.records / seconds, 0),
  };
}
