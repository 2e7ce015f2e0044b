import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { DEFAULT_ROLLOUT_CONFIG } from './rollouts-config.ts';
import { ROLLOUT_STATES, STORE_STATES } from './rollouts-tables.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Literals = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
const ClockTime = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, local' });
const LocationIds = (description: string) =>
  Type.Array(Uuid, { minItems: 1, maxItems: 10_000, uniqueItems: true, description });
const MAX_WAVES = 20;
const WEEK_SECONDS = 7 * 86_400;

export const RolloutParamsSchema = Type.Object({ rollout_id: Uuid });

export const WaveSpecSchema = Type.Union([
  Type.Object(
    { count: Type.Integer({ minimum: 1, maximum: 100_000, description: 'stores this wave adds' }) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      percent: Type.Number({
        exclusiveMinimum: 0,
        maximum: 100,
        description: 'cumulative share of the targeted stores reached by the end of this wave, rounded up',
      }),
    },
    { additionalProperties: false },
  ),
]);

export const TargetSchema = Type.Union([
  Type.Object({ all: Type.Literal(true) }, { additionalProperties: false }),
  Type.Object(
    {
      brand_ids: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 1000, uniqueItems: true })),
      region_ids: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 1000, uniqueItems: true })),
      location_ids: Type.Optional(LocationIds('in this order inside the waves')),
    },
    {
      additionalProperties: false,
      minProperties: 1,
      description: 'stores matching every list given (brands and regions and locations)',
    },
  ),
]);

export const NewRolloutSchema = Type.Object(
  {
    release_id: Uuid,
    target: TargetSchema,
    waves: Type.Optional(
      Type.Array(WaveSpecSchema, {
        minItems: 1,
        maxItems: MAX_WAVES,
        description: 'default [{count: 1}, {percent: 10}, {percent: 100}]',
      }),
    ),
    soak_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: WEEK_SECONDS,
        description: 'how long a finished wave must stay healthy before the next starts (default 3600)',
      }),
    ),
    window: Type.Optional(
      Type.Object(
        { start: ClockTime, end: ClockTime },
        {
          additionalProperties: false,
          description:
            "in each store's own time zone; past midnight wraps; start = end is all day (default 02:00–05:00)",
        },
      ),
    ),
    allow_open_hours: Type.Optional(
      Type.Boolean({ description: 'install while a store is open by its opening hours (default false)' }),
    ),
    failure_threshold: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: "halt when a wave's failed and rolled-back share exceeds it (default 0.2)",
      }),
    ),
    max_failures: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100_000,
        description: 'halt when more stores than this failed or rolled back in the whole rollout',
      }),
    ),
    notes: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type NewRolloutBody = Static<typeof NewRolloutSchema>;

export const IdempotencyHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'a retry with the same key answers the same rollout',
    }),
  ),
});

export const RolloutListQuerySchema = Type.Object(
  {
    state: Type.Optional(Literals(ROLLOUT_STATES)),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);

export const StoreListQuerySchema = Type.Object(
  {
    state: Type.Optional(Literals(STORE_STATES)),
    wave: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_WAVES })),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
    cursor: Type.Optional(
      Type.String({ pattern: '^(0|[1-9][0-9]{0,8})$', description: 'next_cursor of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

export const ExcludeSchema = Type.Object(
  { location_ids: LocationIds('stores to take out of the rollout') },
  { additionalProperties: false },
);

export const RetrySchema = Type.Object(
  {
    location_ids: Type.Optional(
      LocationIds('failed, rolled-back or cancelled stores; all of them when absent'),
    ),
  },
  { additionalProperties: false },
);

const StateCountsSchema = Type.Object(
  Object.fromEntries(STORE_STATES.map((state) => [state, Type.Integer()])),
);

export const RolloutSchema = Type.Object({
  id: Uuid,
  release_id: Uuid,
  version: Type.String(),
  state: Literals(ROLLOUT_STATES),
  target: Type.Record(Type.String(), Type.Unknown()),
  waves: Type.Array(
    Type.Object({
      wave: Type.Integer(),
      count: Type.Optional(Type.Integer()),
      percent: Type.Optional(Type.Number()),
      stores: Type.Integer(),
      counts: StateCountsSchema,
      started_at: Nullable(Timestamp),
      finished_at: Nullable(Timestamp),
    }),
  ),
  current_wave: Type.Integer(),
  soak_seconds: Type.Integer(),
  soak_ends_at: Nullable({
    ...Timestamp,
    description: 'when the next wave may start, once this one finished',
  }),
  window: Type.Object({ start: Type.String(), end: Type.String() }),
  allow_open_hours: Type.Boolean(),
  failure_threshold: Type.Number(),
  max_failures: Nullable(Type.Integer()),
  notes: Nullable(Type.String()),
  halted_reason: Nullable(Type.String()),
  stores: Type.Integer(),
  counts: StateCountsSchema,
  created_by: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: Nullable(Timestamp),
});

export const RolloutStoreSchema = Type.Object({
  location_id: Uuid,
  device_id: Uuid,
  wave: Type.Integer(),
  state: Literals(STORE_STATES),
  progress: Type.Number({ description: 'download progress, 0 to 1' }),
  reason: Nullable(Type.String()),
  command_id: Nullable(Uuid),
  attempts: Type.Integer({
    description: `update commands sent (at most ${DEFAULT_ROLLOUT_CONFIG.maxAttempts} by default)`,
  }),
  from_version: Nullable(Type.String()),
  to_version: Type.String(),
  dispatched_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  updated_at: Timestamp,
});
