import { createHash } from 'node:crypto';
import { AppError, type ErrorDetail } from '../../shared/http/errors.ts';
import { type Change, checkFields, MAX_PUSH_CHANGES, type PushBody } from '../../shared/sync/protocol.ts';
import { isSyncTable, SYNC_TABLES, travelsUp } from '../../shared/sync/registry.ts';

/** A digest of everything a change says, to tell a repeat from a reuse of its id. */
export const digestOf = (change: Change) =>
  createHash('sha256')
    .update(
      JSON.stringify([
        change.table,
        change.row_id,
        change.op,
        change.base_version,
        change.version,
        change.hlc,
        change.fields,
        change.doc ?? null,
      ]),
    )
    .digest('base64url');

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** What is wrong with one change on its own, or undefined. */
function problemOf(change: Change, locationId: string): string | undefined {
  if (!isSyncTable(change.table)) return `${change.table} is not a synced table`;
  const spec = SYNC_TABLES[change.table];
  if (!travelsUp(change.table)) return `${change.table} is written by the cloud only`;
  if (spec.strategy === 'append_only' && change.op !== 'insert')
    return `${change.table} rows are only ever inserted`;
  if (change.op === 'insert' && change.base_version !== 0) return 'an insert is based on version 0';
  if (change.version <= change.base_version) return 'version must be greater than base_version';
  if (change.op === 'delete') {
    if (change.fields !== null) return 'a delete carries no fields';
    if (spec.strategy === 'merge') return `${change.table} rows are never deleted`;
    return undefined;
  }
  if (change.fields === null) return 'fields are required unless op is delete';
  if (spec.strategy === 'merge' && (change.doc === undefined || !BASE64.test(change.doc)))
    return `${change.table} changes carry their document as base64 in doc`;
  const problem = checkFields(change.table, change.row_id, change.fields);
  if (problem) return problem;
  if ('location_id' in spec.columns && change.fields.location_id !== locationId)
    return 'fields.location_id is another location';
  return undefined;
}

/**
 * Checks a whole batch before anything is written: one bad change refuses the batch, with every
 * problem named by its position, so an appliance never half-applies what it sent.
 */
export function checkBatch(body: PushBody, locationId: string) {
  if (body.changes.length > MAX_PUSH_CHANGES) {
    throw new AppError(
      413,
      'BATCH_TOO_LARGE',
      `A push carries at most ${MAX_PUSH_CHANGES} changes; this one has ${body.changes.length}`,
    );
  }
  const details: ErrorDetail[] = [];
  const digests = new Map<string, string>();
  body.changes.forEach((change, i) => {
    const problem = problemOf(change, locationId);
    if (problem) details.push({ field: `body.changes.${i}`, message: problem });
    const digest = digestOf(change);
    const seen = digests.get(change.change_id);
    if (seen !== undefined && seen !== digest)
      details.push({ field: `body.changes.${i}.change_id`, message: 'is used twice with different content' });
    digests.set(change.change_id, digest);
  });
  if (details.some((d) => d.message.includes('another location')))
    throw new AppError(403, 'OUT_OF_SCOPE', 'The batch holds rows of another location', { details });
  if (details.length > 0)
    throw new AppError(400, 'INVALID_BATCH', 'The batch was refused whole', { details });
  return digests;
}
