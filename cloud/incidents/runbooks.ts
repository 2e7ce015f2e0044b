/**
 * The tenant's runbook catalog and the rule that picks one for an incident.
 *
 * A runbook applies when every criterion it sets holds: `service` equals the incident's service,
 * `type` equals its type (the alert's `type` label, or the device form's type), and each of its
 * `labels` is on the alert with the same value. A runbook that sets none applies to everything (the
 * tenant's default). Of those that apply, the most specific wins: one point for the service, one for
 * the type, one per label; on a tie the oldest entry. An alert's own `runbook_url` beats the catalog.
 */
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import { runbookNotFound } from './errors.ts';
import type { RunbookRow } from './tables.ts';
import { toRunbook } from './views.ts';

export interface RunbookMatch {
  service?: string | null | undefined;
  type?: string | null | undefined;
  labels?: Record<string, string> | null | undefined;
}

export interface RunbookInput {
  name: string;
  url: string;
  match?: RunbookMatch | undefined;
}

/** What an incident is matched on. */
export interface RunbookSubject {
  service: string | null;
  type: string | null;
  labels: Record<string, string>;
}

/** A catalog this large is a mistake; the matcher reads at most this many. */
const CATALOG_MAX = 1000;

const labelsOf = (row: RunbookRow): Record<string, string> =>
  row.match_labels ? (JSON.parse(row.match_labels) as Record<string, string>) : {};

/** The runbook's score for the subject, or undefined when it does not apply. */
export function runbookScore(row: RunbookRow, subject: RunbookSubject): number | undefined {
  if (row.match_service !== null && row.match_service !== subject.service) return undefined;
  if (row.match_type !== null && row.match_type !== subject.type) return undefined;
  const labels = Object.entries(labelsOf(row));
  if (labels.some(([name, value]) => subject.labels[name] !== value)) return undefined;
  return (row.match_service !== null ? 1 : 0) + (row.match_type !== null ? 1 : 0) + labels.length;
}

/** The best runbook of the catalog (given oldest first) for the subject, or undefined. */
export function bestRunbook(catalog: RunbookRow[], subject: RunbookSubject): RunbookRow | undefined {
  let best: { row: RunbookRow; score: number } | undefined;
  for (const row of catalog) {
    const score = runbookScore(row, subject);
    if (score !== undefined && (best === undefined || score > best.score)) best = { row, score };
  }
  return best?.row;
}

const runbook = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('incident_runbooks')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

const matchColumns = (match: RunbookMatch | undefined) => ({
  match_service: match?.service ?? null,
  match_type: match?.type ?? null,
  match_labels: match?.labels && Object.keys(match.labels).length > 0 ? JSON.stringify(match.labels) : null,
});

export function createRunbookCatalog(deps: { db: Db; clock: Clock; newId: IdGenerator }) {
  const { db } = deps;
  const now = () => deps.clock.now().toISOString();

  async function requireRunbook(tenantId: string, id: string) {
    const row = await runbook(db, tenantId, id);
    if (!row) throw runbookNotFound();
    return row;
  }

  return {
    async create(tenantId: string, input: RunbookInput) {
      const at = now();
      const row: RunbookRow = {
        id: deps.newId(),
        tenant_id: tenantId,
        name: input.name,
        url: input.url,
        ...matchColumns(input.match),
        created_at: at,
        updated_at: at,
      };
      await db.insertInto('incident_runbooks').values(row).execute();
      return toRunbook(row);
    },

    get: async (tenantId: string, id: string) => toRunbook(await requireRunbook(tenantId, id)),

    /** Oldest first; `cursor` is the previous page's `next_cursor`. */
    async list(tenantId: string, page: { limit: number; cursor?: string | undefined }) {
      const rows = await db
        .selectFrom('incident_runbooks')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(page.cursor !== undefined, (q) => q.where('id', '>', page.cursor!))
        .orderBy('id', 'asc')
        .limit(page.limit + 1)
        .execute();
      const items = rows.slice(0, page.limit).map(toRunbook);
      return { items, nextCursor: rows.length > page.limit ? (items.at(-1)?.id ?? null) : null };
    },

    /** Replaces the entry's name, url and criteria. */
    async replace(tenantId: string, id: string, input: RunbookInput) {
      await requireRunbook(tenantId, id);
      const patch = { name: input.name, url: input.url, ...matchColumns(input.match), updated_at: now() };
      await db
        .updateTable('incident_runbooks')
        .set(patch)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .execute();
      return toRunbook(await requireRunbook(tenantId, id));
    },

    async remove(tenantId: string, id: string) {
      const result = await db
        .deleteFrom('incident_runbooks')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) throw runbookNotFound();
    },

    /** The runbook the rule above picks for the subject, or undefined. */
    async match(tenantId: string, subject: RunbookSubject) {
      const catalog = await db
        .selectFrom('incident_runbooks')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('id', 'asc')
        .limit(CATALOG_MAX)
        .execute();
      return bestRunbook(catalog, subject);
    },
  };
}

export type RunbookCatalog = ReturnType<typeof createRunbookCatalog>;
