import { Type } from '@sinclair/typebox';
import { SYNC_TABLES } from '../../shared/sync/registry.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Kind = Type.Unsafe<(typeof SYNC_TABLES.time_punches.enums.kind)[number]>({
  type: 'string',
  enum: [...SYNC_TABLES.time_punches.enums.kind],
});
// The store's own bounds on a punch's texts.
const Text = Type.String({ minLength: 1, maxLength: 500 });

// A page's last punch as `<at>_<id>`; clients pass next_cursor back as they got it.
const CURSOR = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z_[0-9a-f-]{36}$';

export const PunchListQuerySchema = Type.Object(
  {
    location_id: Type.Optional({ ...Uuid, description: 'Only this store’s punches' }),
    business_day: Type.Optional(
      Type.String({
        format: 'date',
        description: 'Only punches of this business day of their store, YYYY-MM-DD',
      }),
    ),
    staff_id: Type.Optional({ ...Uuid, description: 'Only this staff member’s punches' }),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional(Type.String({ pattern: CURSOR, description: 'next_cursor of the previous page' })),
  },
  { additionalProperties: false },
);

export const PunchSchema = Type.Object({
  id: Uuid,
  location_id: Uuid,
  staff_id: Type.String(),
  kind: Kind,
  at: Timestamp,
  note: Nullable(Type.String()),
  corrected_by: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  created_at: Timestamp,
  version: Type.Integer({ description: 'The row’s version, as the store counts it' }),
});

export const PunchPageSchema = Type.Object({
  items: Type.Array(PunchSchema, { description: 'In time order, then by id' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor for the next page; null on the last page',
  }),
});

export const PunchParamsSchema = Type.Object({ id: Uuid });

export const PunchCorrectionSchema = Type.Object(
  {
    at: Type.Optional({ ...Timestamp, description: 'When the punch really happened' }),
    kind: Type.Optional(Kind),
    note: Type.Optional(Type.Union([Text, Type.Null()], { description: 'null clears the note' })),
    reason: { ...Text, description: 'Why the punch is corrected' },
  },
  { additionalProperties: false },
);
