/**
 * How one pushed change meets the cloud's row: pure decisions, no I/O, so the rules of each
 * strategy read in one place. The service loads the rows, runs these in batch order and writes
 * what they decide.
 */
import { Buffer } from 'node:buffer';
import { isEventType } from '../../shared/events.ts';
import { type FieldValue, mergeRowStates } from '../../shared/sync/merge-doc.ts';
import type { Change, RowState } from '../../shared/sync/protocol.ts';
import { SYNC_TABLES, type SyncTableName } from '../../shared/sync/registry.ts';
import type { SyncRowRow } from './tables.ts';

/** The Yjs client id the cloud edits documents with; writes to a document are serialised by row lock. */
export const CLOUD_DOC_CLIENT = 1;

export type Decision =
  | { status: 'applied'; row: SyncRowRow; echo?: RowState }
  | { status: 'conflict'; winner: SyncRowRow }
  | { status: 'rejected'; reason: string };

export const rowKey = (table: string, rowId: string) => `${table}/${rowId}`;

export function toRowState(row: SyncRowRow): RowState {
  return {
    table: row.table_name,
    row_id: row.row_id,
    version: row.version,
    deleted: row.deleted === 1,
    hlc: row.hlc,
    fields: row.fields === null ? null : (JSON.parse(row.fields) as Record<string, unknown>),
    ...(row.doc !== null ? { doc: row.doc } : {}),
  };
}

interface Context {
  tenantId: string;
  locationId: string;
  at: string;
}

function newRow(change: Change, context: Context, existing: SyncRowRow | undefined): SyncRowRow {
  return {
    tenant_id: context.tenantId,
    location_id: context.locationId,
    row_key: rowKey(change.table, change.row_id),
    table_name: change.table,
    row_id: change.row_id,
    version: change.version,
    deleted: change.op === 'delete' ? 1 : 0,
    hlc: change.hlc > (existing?.hlc ?? '') ? change.hlc : (existing?.hlc ?? change.hlc),
    fields: change.fields === null ? null : JSON.stringify(change.fields),
    doc: null,
    updated_at: context.at,
  };
}

/**
 * `server_wins`: the change stands only if it was made on the version the cloud holds. A row the
 * cloud has never seen is taken as sent (the change carries the whole row).
 */
function serverWins(change: Change, existing: SyncRowRow | undefined, context: Context): Decision {
  if (!existing) return { status: 'applied', row: newRow(change, context, existing) };
  if (existing.version !== change.base_version) return { status: 'conflict', winner: existing };
  return { status: 'applied', row: newRow(change, context, existing) };
}

/** `append_only`: a row is written once; the same row again changes nothing. */
function appendOnly(change: Change, existing: SyncRowRow | undefined, context: Context): Decision {
  if (change.table === 'events') {
    const type = String(change.fields?.type);
    if (!isEventType(type)) return { status: 'rejected', reason: `${type} is not an event of the catalog` };
  }
  if (!existing) return { status: 'applied', row: newRow(change, context, existing) };
  if (existing.fields === JSON.stringify(change.fields)) return { status: 'applied', row: existing };
  return { status: 'conflict', winner: existing };
}

/**
 * `merge`: the cloud's document takes the appliance's state in; both sides' edits survive. When
 * the cloud had edits the appliance has not seen, the merged row goes back in the answer.
 */
function merge(change: Change, existing: SyncRowRow | undefined, context: Context): Decision {
  const incoming = Buffer.from(change.doc ?? '', 'base64');
  const stored = existing?.doc ? Buffer.from(existing.doc, 'base64') : undefined;
  // The appliance materialised these fields from this very state, as the cloud does for what it
  // sends down; when the state is kept as it came, so are they, and no document is built at all.
  // (They could only misstate the appliance's own store's row, which its document could too.)
  const merged = mergeRowStates(
    stored,
    incoming,
    CLOUD_DOC_CLIENT,
    change.fields as Record<string, FieldValue>,
  );
  const row: SyncRowRow = {
    ...newRow(change, context, existing),
    version: Math.max(existing?.version ?? 0, change.version),
    fields: JSON.stringify(merged.fields),
    doc: merged.state === incoming ? change.doc! : Buffer.from(merged.state).toString('base64'),
  };
  return merged.storedHadMore
    ? { status: 'applied', row, echo: toRowState(row) }
    : { status: 'applied', row };
}

export function decide(change: Change, existing: SyncRowRow | undefined, context: Context): Decision {
  const strategy = SYNC_TABLES[change.table as SyncTableName].strategy;
  if (strategy === 'append_only') return appendOnly(change, existing, context);
  if (strategy === 'merge') return merge(change, existing, context);
  return serverWins(change, existing, context);
}
