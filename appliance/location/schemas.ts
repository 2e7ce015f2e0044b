import { type TSchema, Type } from '@sinclair/typebox';
import { WEEKDAYS } from './calendar.ts';

const ClockTime = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', description: 'local time HH:MM' });
const Interval = Type.Object({ opens: ClockTime, closes: ClockTime }, { additionalProperties: false });
const Day = Type.Array(Interval, { maxItems: 10 });
const Status = Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('temporarily_closed')]);

const week = <T extends TSchema>(day: T) =>
  Object.fromEntries(WEEKDAYS.map((name) => [name, day])) as Record<(typeof WEEKDAYS)[number], T>;

export const HoursSchema = Type.Object(
  { hours: Type.Object(week(Type.Optional(Day)), { additionalProperties: false }) },
  { additionalProperties: false },
);

export const StatusSchema = Type.Object({ status: Status }, { additionalProperties: false });

export const LocationSchema = Type.Object({
  location_id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  timezone: Type.String(),
  currency: Type.String(),
  tax_rate_bps: Type.Integer(),
  business_day_starts_at: Type.String(),
  status: Status,
  hours: Type.Object(week(Day)),
  version: Type.Integer(),
  updated_at: Type.String({ format: 'date-time' }),
});
