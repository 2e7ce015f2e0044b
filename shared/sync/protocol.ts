/**
 * What travels between an appliance and the cloud's sync service: pushed changes, their
 * outcomes, and the pulled change feed. The TypeBox schemas are the routes' schemas (and so the
 * OpenAPI document); `checkFields` checks a change's fields against the registry, which a JSON
 * schema cannot do per table without a schema per table.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Counter } from '../http/numbers.ts';
import { HLC_PATTERN } from './hlc.ts';
import { type ColumnType, type Fields, SYNC_TABLES, type SyncTableName } from './registry.ts';

export const DEFAULT_BATCH_SIZE = 100;

/**
 * What the appliance says of its outbox with a push (the changes queued behind that batch), a
 * pull or its wait request, so the cloud's sync status shows the store's backlog and its age.
 */
export const QueueReport = {
  queue_depth: Type.Optional(Counter({ description: 'Changes waiting on the appliance, not yet sent' })),
  oldest_pending_at: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the oldest of them was made',
    }),
  ),
};

/** The same report in a query string, where an empty queue simply leaves the time out. */
export const QueueQuery = {
  queue_depth: QueueReport.queue_depth,
  oldest_pending_at: Type.Optional(Type.String({ format: 'date-time' })),
};

export interface QueueState {
  queue_depth: number;
  oldest_pending_at: string | null;
}
/** The most changes one push may carry: a bigger batch is refused whole (413). */
export const MAX_PUSH_CHANGES = 1000;
/** The most feed entries one pull answers with. */
export const MAX_PULL_LIMIT = 5000;

const Uuid = Type.String({ format: 'uuid' });
const RowId = Type.String({ minLength: 1, maxLength: 200 });

export const ChangeSchema = Type.Object(
  {
    change_id: Uuid,
    table: Type.String({ minLength: 1, maxLength: 64 }),
    row_id: RowId,
    op: Type.Union([Type.Literal('insert'), Type.Literal('update'), Type.Literal('delete')]),
    base_version: Counter({ description: 'The row version this change was made on; 0 for a new row' }),
    version: Counter({ minimum: 1, description: 'The row version this change makes' }),
    hlc: Type.String({ pattern: HLC_PATTERN, description: 'Hybrid logical clock stamp of the change' }),
    fields: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'The row after the change (null for a delete)',
    }),
    doc: Type.Optional(
      Type.String({ maxLength: 1_000_000, description: 'Merge tables: the row’s Yjs state, base64' }),
    ),
  },
  { additionalProperties: false },
);
export type Change = Static<typeof ChangeSchema>;

export const PushBodySchema = Type.Object(
  {
    changes: Type.Array(ChangeSchema, { minItems: 1 }),
    ...QueueReport,
  },
  { additionalProperties: false },
);
export type PushBody = Static<typeof PushBodySchema>;

export const RowStateSchema = Type.Object({
  table: Type.String(),
  row_id: Type.String(),
  version: Type.Integer(),
  deleted: Type.Boolean(),
  hlc: Type.String(),
  fields: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  doc: Type.Optional(Type.String()),
});
export type RowState = Static<typeof RowStateSchema>;

export const ChangeOutcomeSchema = Type.Object({
  change_id: Type.String(),
  status: Type.Union([
    Type.Literal('applied'),
    Type.Literal('duplicate'),
    Type.Literal('conflict'),
    Type.Literal('rejected'),
  ]),
  reason: Type.Optional(Type.String()),
  /** Conflicts: the row that stands. Merges: the merged row, when the cloud had edits of its own. */
  row: Type.Optional(RowStateSchema),
});
export type ChangeOutcome = Static<typeof ChangeOutcomeSchema>;

export const PushResultSchema = Type.Object({
  results: Type.Array(ChangeOutcomeSchema),
  server_hlc: Type.String(),
});
export type PushResult = Static<typeof PushResultSchema>;

export const PullQuerySchema = Type.Object(
  {
    cursor: Type.Optional(Counter({ default: 0, description: 'The last feed seq applied' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PULL_LIMIT, default: 1000 })),
    ...QueueQuery,
  },
  { additionalProperties: false },
);

export const FeedEntrySchema = Type.Intersect([Type.Object({ seq: Type.Integer() }), RowStateSchema]);
export type FeedEntry = Static<typeof FeedEntrySchema>;

export const PullResultSchema = Type.Object({
  changes: Type.Array(FeedEntrySchema),
  cursor: Type.Integer({ description: 'Pull again from here' }),
  has_more: Type.Boolean(),
  /** The cursor is older than the feed keeps: start over from a snapshot (see /v1/sync/snapshot). */
  reset: Type.Boolean(),
  server_hlc: Type.String(),
});
export type PullResult = Static<typeof PullResultSchema>;

const valueChecks: Record<ColumnType, (value: unknown) => boolean> = {
  text: (value) => typeof value === 'string',
  'text?': (value) => value === null || typeof value === 'string',
  integer: (value) => Number.isSafeInteger(value),
  'integer?': (value) => value === null || Number.isSafeInteger(value),
  json: (value) => {
    if (typeof value !== 'string') return false;
    try {
      JSON.parse(value);
      return true;
    } catch {
      return false;
    }
  },
};

const typeNames: Record<ColumnType, string> = {
  text: 'a string',
  'text?': 'a string or null',
  integer: 'an integer',
  'integer?': 'an integer or null',
  json: 'a string holding JSON',
};

/**
 * What is wrong with a change's fields for its table, or undefined: every column present with its
 * type, no column the table does not sync, closed sets respected, and the key equal to `row_id`.
 */
export function checkFields(table: SyncTableName, rowId: string, fields: Fields): string | undefined {
  const spec = SYNC_TABLES[table];
  for (const [column, type] of Object.entries(spec.columns) as Array<[string, ColumnType]>) {
    const value = fields[column];
    if (value === undefined) return `fields.${column} is missing`;
    if (!valueChecks[type](value)) return `fields.${column} must be ${typeNames[type]}`;
  }
  for (const column of Object.keys(fields)) {
    if (!Object.hasOwn(spec.columns, column)) return `fields.${column} is not a synced column of ${table}`;
  }
  const enums: Record<string, readonly string[]> = 'enums' in spec ? spec.enums : {};
  for (const [column, allowed] of Object.entries(enums)) {
    if (!allowed.includes(fields[column] as string))
      return `fields.${column} must be one of ${allowed.join(', ')}`;
  }
  if (fields[spec.key] !== rowId) return `fields.${spec.key} must equal row_id`;
  return undefined;
}
