import { Type } from '@sinclair/typebox';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Kind = Type.Union([
  Type.Literal('clock_in'),
  Type.Literal('clock_out'),
  Type.Literal('break_start'),
  Type.Literal('break_end'),
]);

const Note = Type.String({ minLength: 1, maxLength: 500 });

export const NewPunchSchema = Type.Object(
  { kind: Kind, note: Type.Optional(Note) },
  { additionalProperties: false },
);

export const CorrectionSchema = Type.Object(
  { at: Timestamp, reason: Type.String({ minLength: 1, maxLength: 500 }), note: Type.Optional(Note) },
  { additionalProperties: false },
);

export const PunchParamsSchema = Type.Object({ punch_id: Uuid });

export const PunchSchema = Type.Object({
  id: Uuid,
  staff_id: Type.String(),
  kind: Kind,
  at: Timestamp,
  note: Type.Union([Type.String(), Type.Null()]),
  corrected_by: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  /** Goes up by one with each edit of the punch. */
  version: Type.Integer({ minimum: 1 }),
});

const ShiftState = Type.Union([Type.Literal('off'), Type.Literal('working'), Type.Literal('on_break')]);

export const ShiftSchema = Type.Object({
  state: ShiftState,
  punches: Type.Array(PunchSchema),
});

export const DayQuerySchema = Type.Object(
  {
    business_day: Type.Optional(
      Type.String({ format: 'date', description: 'YYYY-MM-DD; today’s business day when left out' }),
    ),
  },
  { additionalProperties: false },
);

export const StaffDaySchema = Type.Object({
  business_day: Type.String({ format: 'date' }),
  staff: Type.Array(
    Type.Object({
      staff_id: Type.String(),
      display_name: Type.Union([Type.String(), Type.Null()], {
        description: 'null for staff not (yet) on this appliance',
      }),
      state: { ...ShiftState, description: 'where the day’s punches leave the staff member' },
      worked_minutes: Type.Integer({
        description:
          'on the clock within the business day: from clocking in (or ending a break) to starting a break (or clocking out); a shift open at the day’s start or end counts from its start or to its end, today to now',
      }),
      punches: Type.Array(PunchSchema),
    }),
    { description: 'Staff with punches in force that business day, by display name' },
  ),
});
