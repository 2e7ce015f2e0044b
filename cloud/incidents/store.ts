/** The incidents table. Every query takes the tenant first. */
import type { Db } from '../db/index.ts';
import type {
  IncidentAlertRow,
  IncidentRow,
  IncidentSeverity,
  IncidentStatus,
  TimelineRow,
} from './tables.ts';

export interface IncidentFilter {
  status?: IncidentStatus | undefined;
  severity?: IncidentSeverity | undefined;
  service?: string | undefined;
  type?: string | undefined;
  locationId?: string | undefined;
  deviceId?: string | undefined;
}

export type IncidentPatch = Partial<
  Pick<
    IncidentRow,
    | 'status'
    | 'updated_at'
    | 'acknowledged_at'
    | 'acknowledged_by'
    | 'resolved_at'
    | 'resolved_by'
    | 'last_activity_at'
  >
>;

/**
 * Opens the incident, or, when its device already has an unresolved one of the same type, folds
 * this alert into that one (one more occurrence, the later of the two times): a single statement,
 * so two replicas taking the same device's alerts at once still leave one incident.
 */
export const openOrRepeat = (db: Db, row: IncidentRow) =>
  db
    .insertInto('incidents')
    .values(row)
    .onConflict((conflict) =>
      conflict
        .columns(['tenant_id', 'device_id', 'type'])
        .where('resolved_at', 'is', null)
        .doUpdateSet((eb) => ({
          occurrences: eb('incidents.occurrences', '+', 1),
          last_occurred_at: eb
            .case()
            .when(eb('excluded.last_occurred_at', '>', eb.ref('incidents.last_occurred_at')))
            .then(eb.ref('excluded.last_occurred_at'))
            .else(eb.ref('incidents.last_occurred_at'))
            .end(),
          updated_at: eb.ref('excluded.updated_at'),
          last_activity_at: eb.ref('excluded.last_activity_at'),
        })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();

export const incident = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('incidents')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/** Newest first; `before` is the last id of the previous page (ids are time-ordered). */
export const incidents = (
  db: Db,
  tenantId: string,
  filter: IncidentFilter,
  page: { limit: number; before?: string | undefined },
) =>
  db
    .selectFrom('incidents')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .$if(filter.severity !== undefined, (q) => q.where('severity', '=', filter.severity!))
    .$if(filter.service !== undefined, (q) => q.where('service', '=', filter.service!))
    .$if(filter.type !== undefined, (q) => q.where('type', '=', filter.type!))
    .$if(filter.locationId !== undefined, (q) => q.where('location_id', '=', filter.locationId!))
    .$if(filter.deviceId !== undefined, (q) => q.where('device_id', '=', filter.deviceId!))
    .$if(page.before !== undefined, (q) => q.where('id', '<', page.before!))
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();

/** Applies the patch only while the incident is in one of `from`; the row after, or undefined. */
export const transition = (
  db: Db,
  tenantId: string,
  id: string,
  from: readonly IncidentStatus[],
  patch: IncidentPatch,
) =>
  db
    .updateTable('incidents')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();

export const insertIncident = (db: Db, row: IncidentRow) =>
  db.insertInto('incidents').values(row).returningAll().executeTakeFirstOrThrow();

/** Sets the incident's columns the chat flow fills in as it goes. */
export const updateIncident = (
  db: Db,
  tenantId: string,
  id: string,
  patch: Partial<
    Pick<IncidentRow, 'alert_id' | 'channel_id' | 'runbook_id' | 'runbook_url' | 'responders' | 'updated_at'>
  >,
) =>
  db
    .updateTable('incidents')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/**
 * The chat flow's result in one statement: the channel (unless one is set already: the first of two
 * racing flows wins), the responders and the runbook.
 */
export const attachChannel = (
  db: Db,
  tenantId: string,
  id: string,
  patch: Pick<IncidentRow, 'channel_id' | 'responders' | 'updated_at'> &
    Partial<Pick<IncidentRow, 'runbook_url' | 'runbook_id'>>,
) =>
  db
    .updateTable('incidents')
    .set((eb) => ({ ...patch, channel_id: eb.fn.coalesce('channel_id', eb.val(patch.channel_id)) }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/** Appends the entry (once per dedupe key) and moves the incident's last activity forward. */
export async function appendTimeline(db: Db, entry: TimelineRow) {
  return (await appendTimelineAll(db, [entry]))[0];
}

/** Appends entries of one incident in one statement; those inserted (a known dedupe key is not). */
export async function appendTimelineAll(db: Db, entries: TimelineRow[]) {
  const first = entries[0];
  if (!first) return [];
  const inserted = await db
    .insertInto('incident_timeline')
    .values(entries)
    .onConflict((conflict) =>
      conflict
        .columns(['tenant_id', 'incident_id', 'dedupe_key'])
        .where('dedupe_key', 'is not', null)
        .doNothing(),
    )
    .returningAll()
    .execute();
  const latest = inserted
    .map((row) => row.at)
    .sort()
    .at(-1);
  if (latest) await touchActivity(db, first.tenant_id, first.incident_id, latest);
  return inserted.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** Moves the incident's last activity forward to `at`, never back. */
export const touchActivity = (db: Db, tenantId: string, id: string, at: string) =>
  db
    .updateTable('incidents')
    .set({ last_activity_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_activity_at', 'is', null), eb('last_activity_at', '<', at)]))
    .execute();

/** Oldest first; `after` is the last id of the previous page (ids are time-ordered). */
export const timeline = (
  db: Db,
  tenantId: string,
  incidentId: string,
  page: { limit: number; after?: string | undefined },
) =>
  db
    .selectFrom('incident_timeline')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('incident_id', '=', incidentId)
    .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
    .orderBy('id', 'asc')
    .limit(page.limit)
    .execute();

export const alertLink = (db: Db, tenantId: string, alertId: string) =>
  db
    .selectFrom('incident_alerts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('alert_id', '=', alertId)
    .executeTakeFirst();

/** The alerts that went into the incident, the first first. */
export const alertsOfIncident = (db: Db, tenantId: string, incidentId: string) =>
  db
    .selectFrom('incident_alerts')
    .select('alert_id')
    .where('tenant_id', '=', tenantId)
    .where('incident_id', '=', incidentId)
    .orderBy('created_at', 'asc')
    .execute();

export const linkAlert = (db: Db, row: IncidentAlertRow) =>
  db.insertInto('incident_alerts').values(row).execute();

/** Unresolved incidents with a channel whose last activity is at or before `before`, any tenant. */
export const quietIncidents = (db: Db, before: string, limit: number) =>
  db
    .selectFrom('incidents')
    .selectAll()
    .where('status', 'in', ['open', 'acknowledged'])
    .where('channel_id', 'is not', null)
    .where('last_activity_at', '<=', before)
    .orderBy('last_activity_at', 'asc')
    .limit(limit)
    .execute();
