/**
 * On-call rows. People, regions and participants are JSON text (one shape on both databases);
 * instants are ISO 8601 UTC text, so they compare as strings.
 */
export const SCHEDULE_TYPES = ['weekly', 'daily', 'follow_the_sun', 'custom'] as const;
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];

export const OVERRIDE_SLOTS = ['primary', 'secondary'] as const;
export type OverrideSlot = (typeof OVERRIDE_SLOTS)[number];

/** PTO coverage, a shift swap, an emergency stand-in, holiday cover: the documented four kinds. */
export const OVERRIDE_KINDS = ['pto', 'swap', 'emergency', 'holiday'] as const;
export type OverrideKind = (typeof OVERRIDE_KINDS)[number];

export interface OncallScheduleRow {
  id: string;
  tenant_id: string;
  /** Unique per tenant: what alerting and the documented GET /schedule/{team} look schedules up by. */
  team: string;
  type: ScheduleType;
  time_zone: string;
  /** `HH:MM`, local wall clock in time_zone. */
  handoff_time: string;
  /** `YYYY-MM-DD` in time_zone: the first shift starts that day at handoff_time. */
  start_date: string;
  /** custom only: the shift length in hours. */
  shift_hours: number | null;
  /** JSON Person[]: the rotation's order (empty for follow_the_sun). */
  participants: string;
  /** JSON Region[] for follow_the_sun, else null. */
  regions: string | null;
  created_at: string;
  updated_at: string;
}

export interface OncallOverrideRow {
  id: string;
  tenant_id: string;
  schedule_id: string;
  slot: OverrideSlot;
  kind: OverrideKind;
  /** JSON Person. */
  person: string;
  reason: string | null;
  starts_at: string;
  ends_at: string;
  created_at: string;
  created_by: string | null;
}

export interface OncallTables {
  oncall_schedules: OncallScheduleRow;
  oncall_overrides: OncallOverrideRow;
}
