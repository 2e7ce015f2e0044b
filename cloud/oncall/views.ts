/** On-call rows as the domain and the API see them; JSON columns parsed here only. */
import type { Person, Region, Schedule } from './model.ts';
import { SHIFT_HOURS } from './rotation.ts';
import type { OncallOverrideRow, OncallScheduleRow } from './tables.ts';

/** Every contact field present, null where unset: one shape stored, compared and shown. */
export const toPerson = (person: Person): Required<Person> => ({
  name: person.name,
  email: person.email,
  phone: person.phone ?? null,
  push_token: person.push_token ?? null,
  user_id: person.user_id ?? null,
});

/** Who is on call, as GET /schedule/{team} shows them: a device's push token is not for the page. */
export const toOnCallPerson = (person: Person) => ({
  name: person.name,
  email: person.email,
  phone: person.phone ?? null,
  user_id: person.user_id ?? null,
});

export const toRegion = (region: Region) => ({
  name: region.name,
  time_zone: region.time_zone,
  start_time: region.start_time,
  end_time: region.end_time,
  rotation_days: region.rotation_days,
  participants: region.participants.map(toPerson),
});

export const toScheduleSpec = (row: OncallScheduleRow): Schedule => ({
  type: row.type,
  time_zone: row.time_zone,
  handoff_time: row.handoff_time,
  start_date: row.start_date,
  shift_hours: row.shift_hours === null ? null : Number(row.shift_hours),
  participants: JSON.parse(row.participants) as Person[],
  regions: row.regions === null ? null : (JSON.parse(row.regions) as Region[]),
});

export const toSchedule = (row: OncallScheduleRow) => {
  const spec = toScheduleSpec(row);
  const fixed = spec.type === 'weekly' || spec.type === 'daily' ? SHIFT_HOURS[spec.type] : null;
  return {
    id: row.id,
    team: row.team,
    ...spec,
    shift_hours: fixed ?? spec.shift_hours,
    participants: spec.participants.map(toPerson),
    regions: spec.regions?.map(toRegion) ?? null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
};

export type ScheduleView = ReturnType<typeof toSchedule>;

export const toOverride = (row: OncallOverrideRow) => ({
  id: row.id,
  schedule_id: row.schedule_id,
  slot: row.slot,
  kind: row.kind,
  person: toPerson(JSON.parse(row.person) as Person),
  reason: row.reason,
  starts_at: row.starts_at,
  ends_at: row.ends_at,
  created_at: row.created_at,
  created_by: row.created_by,
});

export type OverrideView = ReturnType<typeof toOverride>;
