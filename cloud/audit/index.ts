/**
 * The audit trail: who did what security-relevant thing, from where, with what outcome. Other
 * modules record through `createAuditLog`; nothing reads the table but this module.
 */
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import { type AuditEventRow, createAuditStore } from './store.ts';

export interface AuditEntry {
  action: string;
  outcome: AuditEventRow['outcome'];
  tenantId?: string | null | undefined;
  userId?: string | null | undefined;
  ipAddress?: string | null | undefined;
  details?: Record<string, unknown>;
}

export interface AuditPageQuery {
  limit: number;
  /** The last id of the previous page; ids are UUIDv7, so older events have smaller ids. */
  cursor?: string | undefined;
  action?: string | undefined;
}

export function createAuditLog(deps: { db: Db; clock: Clock; newId: IdGenerator }) {
  const store = createAuditStore(deps.db);
  const toEvent = (row: AuditEventRow) => ({
    ...row,
    details: JSON.parse(row.details) as Record<string, unknown>,
  });
  return {
    record: (entry: AuditEntry) =>
      store.insert({
        id: deps.newId(),
        tenant_id: entry.tenantId ?? null,
        user_id: entry.userId ?? null,
        action: entry.action,
        outcome: entry.outcome,
        ip_address: entry.ipAddress ?? null,
        details: JSON.stringify(entry.details ?? {}),
        created_at: deps.clock.now().toISOString(),
      }),
    /** The newest `limit` events of the tenant, of one action when given. */
    list: async (tenantId: string, options: { limit: number; action?: string | undefined }) =>
      (await store.list(tenantId, options)).map(toEvent),
    /** Newest first, a page at a time; `cursor` is the previous page's `next_cursor`. */
    page: async (tenantId: string, query: AuditPageQuery) => {
      const { limit, cursor, action } = query;
      const rows = await store.list(tenantId, { limit: limit + 1, before: cursor, action });
      const items = rows.slice(0, limit).map(toEvent);
      const last = items.at(-1);
      // One row more than asked says whether an older page exists, so the last page has no cursor.
      return { items, nextCursor: rows.length > limit && last ? last.id : null };
    },
    listAll: async (limit: number) => (await store.listAll(limit)).map(toEvent),
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
export type { AuditTables } from './store.ts';
