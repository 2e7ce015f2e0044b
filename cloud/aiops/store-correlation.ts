/** The dependency graph and correlation group tables. Every query takes the tenant first. */
import type { Db } from '../db/index.ts';
import { chunks } from './store.ts';
import type { AiopsCorrelationGroupRow, AiopsCorrelationMemberRow } from './tables.ts';

export const dependencyRows = (db: Db, tenantId: string) =>
  db
    .selectFrom('aiops_dependencies')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('service')
    .execute();

export async function replaceDependencies(
  db: Db,
  tenantId: string,
  entries: Array<{ service: string; depends_on: string[] }>,
  at: string,
) {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('aiops_dependencies').where('tenant_id', '=', tenantId).execute();
    for (const chunk of chunks(entries, 200))
      await trx
        .insertInto('aiops_dependencies')
        .values(
          chunk.map((e) => ({
            tenant_id: tenantId,
            service: e.service,
            depends_on: JSON.stringify(e.depends_on),
            updated_at: at,
          })),
        )
        .execute();
  });
}

export async function membersOf(db: Db, tenantId: string, alertIds: string[]) {
  const rows: AiopsCorrelationMemberRow[] = [];
  for (const chunk of chunks(alertIds, 500))
    rows.push(
      ...(await db
        .selectFrom('aiops_correlation_members')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('alert_id', 'in', chunk)
        .execute()),
    );
  return rows;
}

export const groupMembers = async (db: Db, tenantId: string, groupId: string) =>
  (
    await db
      .selectFrom('aiops_correlation_members')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('group_id', '=', groupId)
      .orderBy('started_at')
      .execute()
  ).map((row) => ({ ...row, correlation_score: Number(row.correlation_score) }));

export async function group(db: Db, tenantId: string, id: string) {
  const row = await db
    .selectFrom('aiops_correlation_groups')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { ...row, confidence: Number(row.confidence) };
}

/** Writes the group and its members (new members join; known ones keep their group). */
export async function saveGroup(
  db: Db,
  groupRow: AiopsCorrelationGroupRow,
  members: AiopsCorrelationMemberRow[],
) {
  await db
    .insertInto('aiops_correlation_groups')
    .values(groupRow)
    .onConflict((c) =>
      c.column('id').doUpdateSet((eb) => ({
        root_cause_alert: eb.ref('excluded.root_cause_alert'),
        probable_cause: eb.ref('excluded.probable_cause'),
        confidence: eb.ref('excluded.confidence'),
        suggested_action: eb.ref('excluded.suggested_action'),
        runbook_url: eb.ref('excluded.runbook_url'),
        dependency_chain: eb.ref('excluded.dependency_chain'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
  for (const chunk of chunks(members, 200))
    await db
      .insertInto('aiops_correlation_members')
      .values(chunk)
      .onConflict((c) =>
        c.columns(['tenant_id', 'alert_id']).doUpdateSet((eb) => ({
          correlation_score: eb.ref('excluded.correlation_score'),
          relationship: eb.ref('excluded.relationship'),
        })),
      )
      .execute();
}
