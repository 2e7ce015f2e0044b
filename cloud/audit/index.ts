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
    list: async (
      tenantId: string,
      options: { limit: number; before?: string | undefined; action?: string | undefined },
    ) => (await store.list(tenantId, options)).map(toEvent),
    listAll: async (limit: number) => (await store.listAll(limit)).map(toEvent),
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
