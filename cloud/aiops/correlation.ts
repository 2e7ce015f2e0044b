/**
 * Correlation against live alerts: the tenant's dependency graph, the correlate request, and the
 * correlation groups built as alerts fire (each group also an insight of type `correlation`).
 */
import type { Alert } from '../alerting/index.ts';
import type { AiopsContext } from './context.ts';
import { type CorrelatedAlert, type CorrelationRule, correlate, pairScore } from './correlate.ts';
import { alertNotFound, correlationNotFound, invalidField } from './errors.ts';
import { DEFAULT_GRAPH, type DependencyGraph, graphProblem, toGraph } from './graph.ts';
import { insightRow } from './insights.ts';
import { serviceRemediation } from './rca.ts';
import * as store from './store.ts';
import * as groups from './store-correlation.ts';

/** The alert fields correlation reads. */
export function toCorrelated(alert: Alert): CorrelatedAlert {
  return {
    id: alert.id,
    title: alert.title,
    service: alert.service,
    severity: alert.severity,
    started_at: new Date(alert.started_at).toISOString(),
    labels: alert.labels ?? {},
    runbook_url: alert.runbook_url ?? null,
  };
}

export function createCorrelation(context: AiopsContext) {
  const { options, alerting } = context;
  const db = context.store.db;

  async function dependencies(tenantId: string) {
    const rows = await groups.dependencyRows(db, tenantId);
    if (rows.length === 0)
      return {
        source: 'default' as const,
        updated_at: null,
        services: Object.entries(DEFAULT_GRAPH).map(([service, deps]) => ({ service, depends_on: deps })),
      };
    return {
      source: 'tenant' as const,
      updated_at: rows[0]!.updated_at,
      services: rows.map((row) => ({
        service: row.service,
        depends_on: JSON.parse(row.depends_on) as string[],
      })),
    };
  }

  async function graphOf(tenantId: string): Promise<DependencyGraph> {
    return toGraph((await dependencies(tenantId)).services);
  }

  async function rule(tenantId: string): Promise<CorrelationRule> {
    const { windowSeconds, minScore, useDependencyGraph } = options.correlation;
    return { windowSeconds, minScore, graph: useDependencyGraph ? await graphOf(tenantId) : null };
  }

  async function alertOf(tenantId: string, id: string) {
    const alert = await alerting.get(tenantId, id);
    return alert && toCorrelated(alert);
  }

  async function near(tenantId: string, at: string, beforeSeconds: number, afterSeconds: number) {
    const ms = Date.parse(at);
    const from = new Date(ms - beforeSeconds * 1000).toISOString();
    const to = new Date(ms + afterSeconds * 1000).toISOString();
    return (await alerting.between(tenantId, from, to)).map(toCorrelated);
  }

  /**
   * Groups a tenant's alerts that fired together. Each new alert joins the group of its first
   * grouped partner (or starts one) when the grown set still correlates; every touched group is
   * written once per batch, so an alert storm costs one pass instead of one per alert.
   */
  async function onFiredBatch(tenantId: string, fired: Alert[]) {
    if (!options.enabled || !options.correlation.enabled || fired.length === 0) return;
    const r = await rule(tenantId);
    const windowMs = r.windowSeconds * 1000;
    const batch = fired.map(toCorrelated).sort((a, b) => a.started_at.localeCompare(b.started_at));
    const starts = batch.map((a) => Date.parse(a.started_at));
    const nearby = await alerting.between(
      tenantId,
      new Date(Math.min(...starts) - windowMs).toISOString(),
      new Date(Math.max(...starts) + windowMs).toISOString(),
    );
    const known = new Map(nearby.map((a) => [a.id, toCorrelated(a)]));
    for (const alert of batch) known.set(alert.id, alert);
    const groupOf = new Map(
      (await groups.membersOf(db, tenantId, [...known.keys()])).map((m) => [m.alert_id, m.group_id]),
    );

    /** The group's alerts, and how each member row scores now (to write only what changed). */
    const written = new Map<string, string>();
    async function membersOfGroup(groupId: string) {
      const members = new Map<string, CorrelatedAlert>();
      for (const row of await groups.groupMembers(db, tenantId, groupId)) {
        written.set(row.alert_id, `${row.correlation_score}/${row.relationship}`);
        const member = known.get(row.alert_id) ?? (await alertOf(tenantId, row.alert_id));
        if (member) members.set(member.id, member);
      }
      return members;
    }

    // Each alert with partners is headed for the group of its first grouped partner (or a new
    // one); the alerts headed for one group are tried together, and one by one only when the
    // whole lot would not correlate.
    const headed = new Map<string, CorrelatedAlert[][]>();
    const candidates = [...known.values()];
    for (const alert of batch) {
      const at = Date.parse(alert.started_at);
      const partners = candidates.filter(
        (other) =>
          other.id !== alert.id &&
          Math.abs(Date.parse(other.started_at) - at) <= windowMs &&
          pairScore(alert, other, r) >= r.minScore,
      );
      if (partners.length === 0) continue;
      const grouped = partners.find((p) => groupOf.has(p.id));
      const groupId = grouped ? groupOf.get(grouped.id)! : context.newId();
      const joiners = headed.get(groupId) ?? [];
      joiners.push([alert, ...partners]);
      headed.set(groupId, joiners);
      // A partner already in another group stays there (its row keeps its group).
      for (const a of [alert, ...partners]) if (!groupOf.has(a.id)) groupOf.set(a.id, groupId);
    }

    for (const [groupId, joiners] of headed) {
      const members = await membersOfGroup(groupId);
      const all = new Map(members);
      for (const a of joiners.flat()) all.set(a.id, a);
      let result = correlate([...all.values()], r);
      let grown = all;
      if (!result.is_correlated) {
        grown = members;
        for (const joiner of joiners) {
          const tried = new Map(grown);
          for (const a of joiner) tried.set(a.id, a);
          if (correlate([...tried.values()], r).is_correlated) grown = tried;
        }
        if (grown.size === members.size) continue;
        result = correlate([...grown.values()], r);
      }
      await saveGroup(tenantId, groupId, [...grown.values()], result, written);
    }
  }

  async function saveGroup(
    tenantId: string,
    groupId: string,
    alerts: CorrelatedAlert[],
    result: ReturnType<typeof correlate>,
    written: ReadonlyMap<string, string>,
  ) {
    const now = context.clock.now().toISOString();
    const previous = await groups.group(db, tenantId, groupId);
    const suggested = serviceRemediation(result.root.service, result.root.runbook_url);
    const starts = new Map(alerts.map((a) => [a.id, a.started_at]));
    await groups.saveGroup(
      db,
      {
        id: groupId,
        tenant_id: tenantId,
        root_cause_alert: result.root.id,
        probable_cause: result.probable_cause!,
        confidence: result.correlation_score,
        suggested_action: suggested,
        runbook_url: result.root.runbook_url,
        dependency_chain: JSON.stringify(result.dependency_chain),
        created_at: previous?.created_at ?? now,
        updated_at: now,
      },
      result.members
        .filter((m) => written.get(m.alert_id) !== `${m.correlation_score}/${m.relationship}`)
        .map((m) => ({ tenant_id: tenantId, group_id: groupId, started_at: starts.get(m.alert_id)!, ...m })),
    );
    const latest = alerts.reduce((a, b) => (a.started_at > b.started_at ? a : b));
    await store.upsertInsight(
      db,
      insightRow(context, tenantId, {
        type: 'correlation',
        severity: alerts.some((a) => a.severity === 'P1' || a.severity === 'P2') ? 'high' : 'medium',
        description: `${alerts.length} alerts within ${options.correlation.windowSeconds} s share a cause: ${result.probable_cause}`,
        recommended_action: suggested,
        alert_count: alerts.length,
        probable_cause: result.probable_cause,
        correlation_id: groupId,
        details: {
          root_cause_alert: result.root.id,
          correlation_score: result.correlation_score,
          dependency_chain: result.dependency_chain,
          factors: result.factors,
        },
        dedupe_key: `correlation:${groupId}`,
        observed_at: latest.started_at,
      }),
    );
  }

  return {
    dependencies,
    graphOf,
    rule,
    alertOf,
    near,
    onFiredBatch,

    async putDependencies(tenantId: string, entries: Array<{ service: string; depends_on: string[] }>) {
      const problem = graphProblem(entries);
      if (problem) throw invalidField(problem[0], problem[1]);
      await groups.replaceDependencies(db, tenantId, entries, context.clock.now().toISOString());
      return dependencies(tenantId);
    },

    async correlate(tenantId: string, ids: string[]) {
      const distinct = [...new Set(ids)];
      if (distinct.length < 2)
        throw invalidField('body.alert_ids', 'must name at least two different alerts');
      const alerts: CorrelatedAlert[] = [];
      for (const id of distinct) {
        const alert = await alertOf(tenantId, id);
        if (!alert) throw alertNotFound(id);
        alerts.push(alert);
      }
      return correlate(alerts, await rule(tenantId));
    },

    async group(tenantId: string, id: string) {
      const row = await groups.group(db, tenantId, id);
      if (!row) throw correlationNotFound();
      const members = await groups.groupMembers(db, tenantId, id);
      return {
        id: row.id,
        root_cause_alert: row.root_cause_alert,
        probable_cause: row.probable_cause,
        confidence: row.confidence,
        correlated_alerts: members.map((m) => ({
          alert_id: m.alert_id,
          title: m.title,
          correlation_score: m.correlation_score,
          relationship: m.relationship,
        })),
        suggested_action: row.suggested_action,
        runbook_url: row.runbook_url,
        dependency_chain: JSON.parse(row.dependency_chain) as string[],
        created_at: row.created_at,
        updated_at: row.updated_at,
      };
    },
  };
}

export type CorrelationService = ReturnType<typeof createCorrelation>;
