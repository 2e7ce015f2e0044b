import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import { invalid, overrideNotFound, scheduleNotFound, teamNotFound, teamTaken } from './errors.ts';
import type { Override, Person, Schedule } from './model.ts';
import { onCallAt } from './on-call.ts';
import type { NewOverrideBody, NewScheduleBody, SchedulePatchBody } from './schemas.ts';
import * as store from './store.ts';
import type { OncallScheduleRow } from './tables.ts';
import { overrideProblems, scheduleProblems } from './validate.ts';
import { toOnCallPerson, toOverride, toPerson, toRegion, toSchedule, toScheduleSpec } from './views.ts';

export interface OncallDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
}

/** Who is on call for a team: the on-call schedule, the contract other modules use. */
export interface OnCallNow {
  team: string;
  current: { primary: Person | null; secondary: Person | null };
  next_rotation: string | null;
}

const REGION_DEFAULTS = { rotation_days: 7 };

/** The stored form of a schedule spec: normalised people, JSON columns. */
function scheduleColumns(spec: Schedule) {
  return {
    type: spec.type,
    time_zone: spec.time_zone,
    handoff_time: spec.handoff_time,
    start_date: spec.start_date,
    shift_hours: spec.shift_hours,
    participants: JSON.stringify(spec.participants.map(toPerson)),
    regions: spec.regions === null ? null : JSON.stringify(spec.regions.map(toRegion)),
  };
}

/** The current spec with the patch applied; fields the new type does not take are dropped unless given. */
function patched(current: Schedule, patch: SchedulePatchBody): Schedule {
  const type = patch.type ?? current.type;
  const keep = <T>(value: T, applies: boolean, empty: T) => (applies ? value : empty);
  return {
    type,
    time_zone: patch.time_zone ?? current.time_zone,
    handoff_time: patch.handoff_time ?? current.handoff_time,
    start_date: patch.start_date ?? current.start_date,
    shift_hours:
      patch.shift_hours !== undefined
        ? patch.shift_hours
        : keep(current.shift_hours, type === 'custom', null),
    participants: patch.participants ?? keep(current.participants, type !== 'follow_the_sun', []),
    regions:
      patch.regions !== undefined
        ? (patch.regions?.map((r) => ({ ...REGION_DEFAULTS, ...r })) ?? null)
        : keep(current.regions, type === 'follow_the_sun', null),
  };
}

/**
 * On-call schedules and overrides of a tenant's teams, and who is on call at an instant. The
 * computation itself is pure (on-call.ts); this service loads, validates and stores.
 */
export function createOncallService(deps: OncallDeps) {
  const db = deps.store.db;

  async function requireSchedule(tenantId: string, id: string) {
    const row = await store.scheduleById(db, tenantId, id);
    if (!row) throw scheduleNotFound();
    return row;
  }

  async function answer(tenantId: string, row: OncallScheduleRow, at: Date) {
    const overrides = (await store.overridesFrom(db, tenantId, row.id, at.toISOString())).map(toOverride);
    return onCallAt(toScheduleSpec(row), overrides, at);
  }

  async function saving<T>(write: () => Promise<T>) {
    try {
      return await write();
    } catch (error) {
      if (deps.store.isUniqueViolation(error)) throw teamTaken();
      throw error;
    }
  }

  return {
    /** The contract: undefined when the tenant has no such team. */
    async current(tenantId: string, team: string, at?: Date): Promise<OnCallNow | undefined> {
      const row = await store.scheduleByTeam(db, tenantId, team);
      if (!row) return undefined;
      const result = await answer(tenantId, row, at ?? deps.clock.now());
      return { team: row.team, current: result.current, next_rotation: result.next_rotation };
    },

    /** GET /schedule/{team}: the answer with what it was computed from; 404 for an unknown team. */
    async onCall(tenantId: string, team: string, at?: Date) {
      const row = await store.scheduleByTeam(db, tenantId, team);
      if (!row) throw teamNotFound();
      const instant = at ?? deps.clock.now();
      const result = await answer(tenantId, row, instant);
      const brief = (o: Override | null) => o && { id: o.id, kind: o.kind, ends_at: o.ends_at };
      return {
        team: row.team,
        current: {
          primary: result.current.primary && toOnCallPerson(result.current.primary),
          secondary: result.current.secondary && toOnCallPerson(result.current.secondary),
        },
        next_rotation: result.next_rotation,
        at: instant.toISOString(),
        schedule_id: row.id,
        type: row.type,
        time_zone: row.time_zone,
        overrides: { primary: brief(result.overrides.primary), secondary: brief(result.overrides.secondary) },
      };
    },

    teams: (tenantId: string) => store.teamNames(db, tenantId),

    async createSchedule(tenantId: string, body: NewScheduleBody) {
      const spec: Schedule = {
        type: body.type,
        time_zone: body.time_zone,
        handoff_time: body.handoff_time ?? '09:00',
        start_date: body.start_date,
        shift_hours: body.shift_hours ?? null,
        participants: body.participants ?? [],
        regions: body.regions?.map((r) => ({ ...REGION_DEFAULTS, ...r })) ?? null,
      };
      const problems = scheduleProblems(spec);
      if (problems.length > 0) throw invalid(problems);
      const at = deps.clock.now().toISOString();
      const row = { id: deps.newId(), tenant_id: tenantId, team: body.team, ...scheduleColumns(spec) };
      return toSchedule(
        await saving(() => store.insertSchedule(db, { ...row, created_at: at, updated_at: at })),
      );
    },

    async getSchedule(tenantId: string, id: string) {
      return toSchedule(await requireSchedule(tenantId, id));
    },

    /** By team name; `cursor` is the previous page's `next_cursor`. */
    async listSchedules(tenantId: string, page: { limit: number; cursor?: string | undefined }) {
      const rows = await store.schedules(db, tenantId, { limit: page.limit + 1, after: page.cursor });
      const items = rows.slice(0, page.limit).map(toSchedule);
      return { items, nextCursor: rows.length > page.limit ? (items.at(-1)?.team ?? null) : null };
    },

    /** A partial change, validated as a whole schedule. Overrides stay: they are about people and times. */
    async updateSchedule(tenantId: string, id: string, patch: SchedulePatchBody) {
      const current = await requireSchedule(tenantId, id);
      const spec = patched(toScheduleSpec(current), patch);
      const problems = scheduleProblems(spec);
      if (problems.length > 0) throw invalid(problems);
      const columns = { ...scheduleColumns(spec), updated_at: deps.clock.now().toISOString() };
      const row = await saving(() =>
        store.updateSchedule(db, tenantId, id, { ...columns, ...(patch.team ? { team: patch.team } : {}) }),
      );
      if (!row) throw scheduleNotFound();
      return toSchedule(row);
    },

    async deleteSchedule(tenantId: string, id: string) {
      if ((await store.deleteSchedule(db, tenantId, id)) === 0) throw scheduleNotFound();
    },

    /**
     * An override of one slot for [starts_at, ends_at). Sending the same override again (a retry)
     * answers the one already there with `created: false` instead of adding a copy.
     */
    async createOverride(tenantId: string, scheduleId: string, body: NewOverrideBody, userId: string | null) {
      await requireSchedule(tenantId, scheduleId);
      const now = deps.clock.now();
      const problems = overrideProblems(body.starts_at, body.ends_at, now);
      if (problems.length > 0) throw invalid(problems);
      const row = {
        id: deps.newId(),
        tenant_id: tenantId,
        schedule_id: scheduleId,
        slot: body.slot ?? 'primary',
        kind: body.kind,
        person: JSON.stringify(toPerson(body.person)),
        reason: body.reason ?? null,
        starts_at: new Date(body.starts_at).toISOString(),
        ends_at: new Date(body.ends_at).toISOString(),
        created_at: now.toISOString(),
        created_by: userId,
      };
      const same = await store.sameOverride(db, row);
      if (same) return { override: toOverride(same), created: false };
      return { override: toOverride(await store.insertOverride(db, row)), created: true };
    },

    /** Newest first; only those not yet over unless `includeEnded`. */
    async listOverrides(
      tenantId: string,
      scheduleId: string,
      query: { includeEnded: boolean; limit: number; cursor?: string | undefined },
    ) {
      await requireSchedule(tenantId, scheduleId);
      const notEndedAt = query.includeEnded ? undefined : deps.clock.now().toISOString();
      const rows = await store.overrides(
        db,
        tenantId,
        scheduleId,
        { notEndedAt },
        { limit: query.limit + 1, before: query.cursor },
      );
      const items = rows.slice(0, query.limit).map(toOverride);
      return { items, nextCursor: rows.length > query.limit ? (items.at(-1)?.id ?? null) : null };
    },

    async getOverride(tenantId: string, scheduleId: string, id: string) {
      const row = await store.overrideById(db, tenantId, scheduleId, id);
      if (!row) throw overrideNotFound();
      return toOverride(row);
    },

    async deleteOverride(tenantId: string, scheduleId: string, id: string) {
      if ((await store.deleteOverride(db, tenantId, scheduleId, id)) === 0) throw overrideNotFound();
    },
  };
}

export type OncallService = ReturnType<typeof createOncallService>;
