/** Escalation policies and maintenance windows: the tenant's alerting settings. */
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import {
  defaultTaken,
  levelWithoutTimeout,
  policyNotFound,
  windowBackwards,
  windowNotFound,
} from './errors.ts';
import type { PolicyBody, WindowBody } from './schemas.ts';
import { policies, windows } from './settings-store.ts';
import type { MaintenanceWindowRow, PolicyRow } from './tables.ts';
import { toPolicy, toWindow } from './views.ts';

type PageQuery = { limit: number; cursor?: string | undefined };

export function createAlertSettings(deps: { store: Store; clock: Clock; newId: IdGenerator }) {
  const { db } = deps.store;
  const now = () => deps.clock.now().toISOString();

  function policyColumns(body: PolicyBody) {
    body.levels.forEach((level, index) => {
      if (level.timeout_minutes === null && index < body.levels.length - 1) throw levelWithoutTimeout(index);
    });
    return {
      name: body.name,
      is_default: body.is_default ? 1 : 0,
      match_services: JSON.stringify(body.match?.services ?? []),
      match_severities: JSON.stringify(body.match?.severities ?? []),
      match_labels: JSON.stringify(body.match?.labels ?? {}),
      mode: body.mode,
      skip_when_acknowledged: body.skip_when_acknowledged ? 1 : 0,
      levels: JSON.stringify(body.levels),
      updated_at: now(),
    };
  }

  async function uniqueDefault<T>(write: () => Promise<T>) {
    try {
      return await write();
    } catch (error) {
      if (deps.store.isUniqueViolation(error)) throw defaultTaken();
      throw error;
    }
  }

  function windowColumns(body: WindowBody) {
    const starts = new Date(body.starts_at);
    const ends = new Date(body.ends_at);
    if (ends <= starts) throw windowBackwards();
    return {
      name: body.name,
      type: body.type,
      starts_at: starts.toISOString(),
      ends_at: ends.toISOString(),
      match_services: JSON.stringify(body.match?.services ?? []),
      match_labels: JSON.stringify(body.match?.labels ?? {}),
      match_location_ids: JSON.stringify(body.match?.location_ids ?? []),
      updated_at: now(),
    };
  }

  const page = <R extends { id: string }, V>(rows: R[], limit: number, view: (row: R) => V) => {
    const items = rows.slice(0, limit);
    return { items: items.map(view), nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
  };

  return {
    policies: {
      async create(tenantId: string, body: PolicyBody) {
        const columns = policyColumns(body);
        const row: PolicyRow = {
          id: deps.newId(),
          tenant_id: tenantId,
          rotation: 0,
          created_at: columns.updated_at,
          ...columns,
        };
        return toPolicy(await uniqueDefault(() => policies.insert(db, row)));
      },
      async get(tenantId: string, id: string) {
        const row = await policies.get(db, tenantId, id);
        if (!row) throw policyNotFound();
        return toPolicy(row);
      },
      async list(tenantId: string, query: PageQuery) {
        const rows = await policies.list(db, tenantId, { limit: query.limit + 1, after: query.cursor });
        return page(rows, query.limit, toPolicy);
      },
      async replace(tenantId: string, id: string, body: PolicyBody) {
        const columns = policyColumns(body);
        const row = await uniqueDefault(() => policies.update(db, tenantId, id, columns));
        if (!row) throw policyNotFound();
        return toPolicy(row);
      },
      async remove(tenantId: string, id: string) {
        if (!(await policies.remove(db, tenantId, id))) throw policyNotFound();
      },
    },
    windows: {
      async create(tenantId: string, body: WindowBody) {
        const columns = windowColumns(body);
        const row: MaintenanceWindowRow = {
          id: deps.newId(),
          tenant_id: tenantId,
          created_at: columns.updated_at,
          ...columns,
        };
        return toWindow(await windows.insert(db, row));
      },
      async get(tenantId: string, id: string) {
        const row = await windows.get(db, tenantId, id);
        if (!row) throw windowNotFound();
        return toWindow(row);
      },
      async list(tenantId: string, query: PageQuery & { active_at?: string | undefined }) {
        const activeAt = query.active_at ? new Date(query.active_at).toISOString() : undefined;
        const rows = await windows.list(db, tenantId, {
          limit: query.limit + 1,
          after: query.cursor,
          activeAt,
        });
        return page(rows, query.limit, toWindow);
      },
      async replace(tenantId: string, id: string, body: WindowBody) {
        const row = await windows.update(db, tenantId, id, windowColumns(body));
        if (!row) throw windowNotFound();
        return toWindow(row);
      },
      async remove(tenantId: string, id: string) {
        if (!(await windows.remove(db, tenantId, id))) throw windowNotFound();
      },
    },
  };
}

export type AlertSettings = ReturnType<typeof createAlertSettings>;
