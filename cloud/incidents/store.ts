/** The incidents table. Every query takes the tenant first. */
import type { Db } from '../db/index.ts';
import type { IncidentRow, IncidentStatus } from './tables.ts';

export interface IncidentFilter {
  status?: IncidentStatus | undefined;
  type?: string | undefined;
  locationId?: string | undefined;
  deviceId?: string | undefined;
}

export type IncidentPatch = Partial<
  Pick<
    IncidentRow,
    'status' | 'updated_at' | 'acknowledged_at' | 'acknowledged_by' | 'resolved_at' | 'resolved_by'
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
