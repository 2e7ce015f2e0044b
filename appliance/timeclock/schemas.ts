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

export const ShiftSchema = Type.Object({
  state: Type.Union([Type.Literal('off'), Type.Literal('working'), Type.Literal('on_break')]),
  punches: Type.Array(PunchSchema),
});
