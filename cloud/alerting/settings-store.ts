/** Escalation policies and maintenance windows. Every query takes the tenant first. */
import type { Db } from '../db/index.ts';
import type { MaintenanceWindowRow, PolicyRow } from './tables.ts';

type Page = { limit: number; after?: string | undefined };

export const policies = {
  insert: (db: Db, row: PolicyRow) =>
    db.insertInto('alert_policies').values(row).returningAll().executeTakeFirstOrThrow(),

  get: (db: Db, tenantId: string, id: string) =>
    db
      .selectFrom('alert_policies')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst(),

  /** Creation order: the order matching walks them in. */
  list: (db: Db, tenantId: string, page: Page) =>
    db
      .selectFrom('alert_policies')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
      .orderBy('id')
      .limit(page.limit)
      .execute(),

  all: (db: Db, tenantId: string) =>
    db
      .selectFrom('alert_policies')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .limit(1000)
      .execute(),

  update: (
    db: Db,
    tenantId: string,
    id: string,
    patch: Omit<PolicyRow, 'id' | 'tenant_id' | 'created_at' | 'rotation'>,
  ) =>
    db
      .updateTable('alert_policies')
      .set(patch)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst(),

  remove: async (db: Db, tenantId: string, id: string) => {
    const result = await db
      .deleteFrom('alert_policies')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  },

  /** Round-robin: this alert's turn (the count before it), counted atomically with the alert. */
  async takeTurn(db: Db, tenantId: string, id: string) {
    const row = await db
      .updateTable('alert_policies')
      .set((eb) => ({ rotation: eb('rotation', '+', 1) }))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returning('rotation')
      .executeTakeFirst();
    return row ? Number(row.rotation) - 1 : 0;
  },
};

export const windows = {
  insert: (db: Db, row: MaintenanceWindowRow) =>
    db.insertInto('alert_maintenance_windows').values(row).returningAll().executeTakeFirstOrThrow(),

  get: (db: Db, tenantId: string, id: string) =>
    db
      .selectFrom('alert_maintenance_windows')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst(),

  list: (db: Db, tenantId: string, page: Page & { activeAt?: string | undefined }) =>
    db
      .selectFrom('alert_maintenance_windows')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .$if(page.activeAt !== undefined, (q) =>
        q.where('starts_at', '<=', page.activeAt!).where('ends_at', '>', page.activeAt!),
      )
      .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
      .orderBy('id')
      .limit(page.limit)
      .execute(),

  /** Windows open at `at` (matching is done by the caller). */
  openAt: (db: Db, tenantId: string, at: string) =>
    db
      .selectFrom('alert_maintenance_windows')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('ends_at', '>', at)
      .where('starts_at', '<=', at)
      .limit(1000)
      .execute(),

  update: (
    db: Db,
    tenantId: string,
    id: string,
    patch: Omit<MaintenanceWindowRow, 'id' | 'tenant_id' | 'created_at'>,
  ) =>
    db
      .updateTable('alert_maintenance_windows')
      .set(patch)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst(),

  remove: async (db: Db, tenantId: string, id: string) => {
    const result = await db
      .deleteFrom('alert_maintenance_windows')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  },
};
