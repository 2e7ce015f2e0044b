import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { OVERRIDE_KINDS, OVERRIDE_SLOTS, SCHEDULE_TYPES } from './tables.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Literals = <T extends readonly string[]>(values: T, options: { default?: T[number] } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const Clock = (description: string) =>
  Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: `HH:MM, ${description}` });
const Zone = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 64,
    description: `IANA time zone, e.g. Europe/Berlin; ${description}`,
  });

/** A team name is part of a URL path (/schedule/{team}): no slashes, no blanks at either end. */
export const TeamSchema = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[^/\\s](?:[^/]*[^/\\s])?$',
  description: 'unique per tenant, e.g. platform-sre',
});

export const PersonSchema = Type.Object(
  {
    name: Text(200),
    email: Type.String({ format: 'email', maxLength: 320 }),
    phone: Type.Optional(Nullable(Type.String({ pattern: '^\\+?[0-9 ()-]{5,32}$' }))),
    push_token: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 4096 }))),
    user_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  },
  { additionalProperties: false },
);

/** A person as the rotation is configured: every contact field, null where unset. */
export const PersonViewSchema = Type.Object({
  name: Type.String(),
  email: Type.String(),
  phone: Nullable(Type.String()),
  push_token: Nullable(Type.String()),
  user_id: Nullable(Type.String()),
});

/** Who is on call, as GET /schedule/{team} shows them: device push tokens stay out. */
export const OnCallPersonSchema = Type.Object({
  name: Type.String(),
  email: Type.String(),
  phone: Nullable(Type.String()),
  user_id: Nullable(Type.String()),
});

const Participants = Type.Array(PersonSchema, { maxItems: 100, description: 'the rotation order' });

export const RegionSchema = Type.Object(
  {
    name: Text(100),
    time_zone: Zone('the region’s own'),
    start_time: Clock('local start of the region’s working hours; it takes the pager then'),
    end_time: Clock('local end of its working hours; before start_time means the next day'),
    rotation_days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 28,
        description: 'working days each participant covers before the next takes over; 7 when not given',
      }),
    ),
    participants: Type.Array(PersonSchema, { minItems: 1, maxItems: 100 }),
  },
  { additionalProperties: false },
);

const RegionViewSchema = Type.Object({
  name: Type.String(),
  time_zone: Type.String(),
  start_time: Type.String(),
  end_time: Type.String(),
  rotation_days: Type.Integer(),
  participants: Type.Array(PersonViewSchema),
});

const scheduleFields = {
  team: TeamSchema,
  type: Literals(SCHEDULE_TYPES),
  time_zone: Zone('handoffs and start_date are read in it'),
  handoff_time: Clock('local wall-clock time of each handoff (of the start, for follow_the_sun)'),
  start_date: Type.String({
    pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
    description: 'YYYY-MM-DD in time_zone: the first shift starts that day at handoff_time',
  }),
  shift_hours: Type.Integer({
    minimum: 1,
    maximum: 672,
    description: 'custom only: the shift length in hours of wall-clock time (12: 08:00 and 20:00)',
  }),
  participants: Participants,
  regions: Type.Array(RegionSchema, {
    minItems: 1,
    maxItems: 24,
    description: 'follow_the_sun only: the regions, each with its own zone, hours and people',
  }),
};

export const NewScheduleSchema = Type.Object(
  {
    team: scheduleFields.team,
    type: scheduleFields.type,
    time_zone: scheduleFields.time_zone,
    handoff_time: Type.Optional({ ...scheduleFields.handoff_time, default: '09:00' }),
    start_date: scheduleFields.start_date,
    shift_hours: Type.Optional(scheduleFields.shift_hours),
    participants: Type.Optional({ ...scheduleFields.participants, default: [] }),
    regions: Type.Optional(scheduleFields.regions),
  },
  { additionalProperties: false },
);
export type NewScheduleBody = Static<typeof NewScheduleSchema>;

export const SchedulePatchSchema = Type.Object(
  {
    team: Type.Optional(scheduleFields.team),
    type: Type.Optional(scheduleFields.type),
    time_zone: Type.Optional(scheduleFields.time_zone),
    handoff_time: Type.Optional(scheduleFields.handoff_time),
    start_date: Type.Optional(scheduleFields.start_date),
    shift_hours: Type.Optional(Nullable(scheduleFields.shift_hours)),
    participants: Type.Optional(scheduleFields.participants),
    regions: Type.Optional(Nullable(scheduleFields.regions)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type SchedulePatchBody = Static<typeof SchedulePatchSchema>;

export const ScheduleSchema = Type.Object({
  id: Uuid,
  team: Type.String(),
  type: Literals(SCHEDULE_TYPES),
  time_zone: Type.String(),
  handoff_time: Type.String(),
  start_date: Type.String(),
  shift_hours: Nullable(
    Type.Integer({
      description: 'the shift length: 168 weekly, 24 daily, as set for custom; null for follow_the_sun',
    }),
  ),
  participants: Type.Array(PersonViewSchema),
  regions: Nullable(Type.Array(RegionViewSchema)),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ScheduleParamsSchema = Type.Object({ schedule_id: Uuid });
export const OverrideParamsSchema = Type.Object({ schedule_id: Uuid, override_id: Uuid });
export const TeamParamsSchema = Type.Object({ team: TeamSchema });

const Limit = Type.Integer({ minimum: 1, maximum: 200, default: 50 });

export const ScheduleListQuerySchema = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional({ ...TeamSchema, description: 'next_cursor of the previous page (a team)' }),
  },
  { additionalProperties: false },
);

export const NewOverrideSchema = Type.Object(
  {
    slot: Type.Optional(Literals(OVERRIDE_SLOTS, { default: 'primary' })),
    kind: Literals(OVERRIDE_KINDS),
    person: PersonSchema,
    starts_at: Timestamp,
    ends_at: { ...Timestamp, description: 'exclusive; after starts_at and not in the past' },
    reason: Type.Optional(Nullable(Text(500))),
  },
  { additionalProperties: false },
);
export type NewOverrideBody = Static<typeof NewOverrideSchema>;

export const OverrideSchema = Type.Object({
  id: Uuid,
  schedule_id: Uuid,
  slot: Literals(OVERRIDE_SLOTS),
  kind: Literals(OVERRIDE_KINDS),
  person: PersonViewSchema,
  reason: Nullable(Type.String()),
  starts_at: Timestamp,
  ends_at: Timestamp,
  created_at: Timestamp,
  created_by: Nullable(Type.String({ description: 'user id' })),
});

export const OverrideListQuerySchema = Type.Object(
  {
    include_ended: Type.Boolean({ default: false, description: 'also list overrides already over' }),
    limit: Limit,
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);

export const OnCallQuerySchema = Type.Object(
  { at: Type.Optional({ ...Timestamp, description: 'who is on call then (default: now)' }) },
  { additionalProperties: false },
);

const ActiveOverrideSchema = Nullable(
  Type.Object({ id: Uuid, kind: Literals(OVERRIDE_KINDS), ends_at: Timestamp }),
);

/** Spec 3's on-call schedule, plus what it was computed from. */
export const OnCallSchema = Type.Object({
  team: Type.String(),
  current: Type.Object({
    primary: Nullable(OnCallPersonSchema),
    secondary: Nullable(OnCallPersonSchema),
  }),
  next_rotation: Nullable({
    ...Timestamp,
    description: 'when the primary or secondary next changes (handoff or override); null: not within a year',
  }),
  at: { ...Timestamp, description: 'the instant answered for' },
  schedule_id: Uuid,
  type: Literals(SCHEDULE_TYPES),
  time_zone: Type.String(),
  overrides: Type.Object({ primary: ActiveOverrideSchema, secondary: ActiveOverrideSchema }),
});
