import type { Db } from '../db/index.ts';

export interface AuditEventRow {
  id: string;
  tenant_id: string | null;
  user_id: string | null;
  action: string;
  outcome: 'success' | 'failure';
  ip_address: string | null;
  /** JSON object. */
  details: string;
  created_at: string;
}

export interface AuditTables {
  audit_events: AuditEventRow;
}

export function createAuditStore(db: Db) {
  return {
    insert: (row: AuditEventRow) => db.insertInto('audit_events').values(row).execute(),
    list: (
      tenantId: string,
      options: { limit: number; before?: string | undefined; action?: string | undefined },
    ) =>
      db
        .selectFrom('audit_events')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(options.action !== undefined, (q) => q.where('action', '=', options.action!))
        .$if(options.before !== undefined, (q) => q.where('id', '<', options.before!))
        .orderBy('id', 'desc')
        .limit(options.limit)
        .execute(),
    /** Events with no tenant (e.g. failures against unknown accounts) and every tenant's: operators only. */
    listAll: (limit: number) =>
      db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').limit(limit).execute(),
  };
}
