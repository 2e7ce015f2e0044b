import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/index.ts';
import type { DeliveryPatch } from './store.ts';

type SqlType = 'text' | 'integer' | 'real';

interface Column<T> {
  name: string;
  type: SqlType;
  value(item: T): unknown;
}

/** Rows per statement: well within either database's limit on parameters. */
const ROWS_PER_STATEMENT = 200;

/**
 * `with v(...) as (values ...)`, every value cast: PostgreSQL types a VALUES list by its contents,
 * and parameters arrive untyped. A VALUES list is as long as it says on either database, so a
 * join to it by primary key is planned as key probes with or without statistics.
 */
function valuesTable<T>(items: readonly T[], columns: ReadonlyArray<Column<T>>): RawBuilder<unknown> {
  const names = sql.join(columns.map((column) => sql.ref(column.name)));
  const rows = items.map(
    (item) =>
      sql`(${sql.join(columns.map((column) => sql`cast(${column.value(item)} as ${sql.raw(column.type)})`))})`,
  );
  return sql`with v(${names}) as (values ${sql.join(rows)})`;
}

export interface DeliveryOutcome {
  id: string;
  /** The delivery as the attempt left it: the patch lands on that state only. */
  expected: { attempt: number; inFlightSince: string };
  patch: DeliveryPatch;
}

const DELIVERY_TYPES: Partial<Record<keyof DeliveryPatch, SqlType>> = {
  attempt: 'integer',
  last_response_code: 'integer',
  last_latency_ms: 'real',
};

const shapeOf = (outcome: DeliveryOutcome) => Object.keys(outcome.patch).join();

/**
 * Consecutive outcomes that one statement can write: the same columns, at most one per delivery
 * (a statement updates a row once), so applying them in turn keeps their order.
 */
function statementsOf(outcomes: readonly DeliveryOutcome[]) {
  const groups: number[][] = [];
  let ids = new Set<string>();
  outcomes.forEach((outcome, index) => {
    const group = groups.at(-1);
    const fits =
      group !== undefined &&
      group.length < ROWS_PER_STATEMENT &&
      !ids.has(outcome.id) &&
      shapeOf(outcomes[group[0]!]!) === shapeOf(outcome);
    if (fits) group.push(index);
    else {
      groups.push([index]);
      ids = new Set();
    }
    ids.add(outcome.id);
  });
  return groups;
}

/**
 * Finished attempts' outcomes, each written only over the attempt it belongs to, a statement per
 * few hundred rather than one per delivery. Answers, in order, whether each one landed.
 */
export async function settleDeliveries(db: Db, outcomes: readonly DeliveryOutcome[]) {
  const settled = outcomes.map(() => false);
  for (const group of statementsOf(outcomes)) {
    const rows = group.map((index) => outcomes[index]!);
    const patched = Object.keys(rows[0]!.patch) as Array<keyof DeliveryPatch>;
    const values = valuesTable(rows, [
      { name: 'id', type: 'text', value: (row) => row.id },
      { name: 'expected_attempt', type: 'integer', value: (row) => row.expected.attempt },
      { name: 'expected_since', type: 'text', value: (row) => row.expected.inFlightSince },
      ...patched.map((name) => ({
        name,
        type: DELIVERY_TYPES[name] ?? ('text' as const),
        value: (row: DeliveryOutcome) => row.patch[name] ?? null,
      })),
    ]);
    const result = await sql<{ id: string }>`${values}
      update webhook_deliveries set ${sql.join(patched.map((name) => sql`${sql.ref(name)} = v.${sql.ref(name)}`))}
      from v
      where webhook_deliveries.id = v.id
        and webhook_deliveries.attempt = v.expected_attempt
        and webhook_deliveries.in_flight_since = v.expected_since
      returning webhook_deliveries.id`.execute(db);
    const landed = new Set(result.rows.map((row) => row.id));
    for (const index of group) settled[index] = landed.has(outcomes[index]!.id);
  }
  return settled;
}

/** An endpoint's health after a group of attempts. */
export interface HealthUpdate {
  webhookId: string;
  lastDeliveryAt: string;
  lastSuccessAt?: string | undefined;
  lastFailureAt?: string | undefined;
  /** The first failure after the last success in the group; undefined when it ended well. */
  failingFrom?: string | undefined;
}

/**
 * Every endpoint's health in one statement per few hundred. A success in the group ends any earlier
 * run of failures; a group of failures alone carries the run on (or starts it).
 */
export async function updateHealth(db: Db, updates: readonly HealthUpdate[]) {
  for (let i = 0; i < updates.length; i += ROWS_PER_STATEMENT) {
    const values = valuesTable(updates.slice(i, i + ROWS_PER_STATEMENT), [
      { name: 'id', type: 'text', value: (u) => u.webhookId },
      { name: 'delivery_at', type: 'text', value: (u) => u.lastDeliveryAt },
      { name: 'success_at', type: 'text', value: (u) => u.lastSuccessAt ?? null },
      { name: 'failure_at', type: 'text', value: (u) => u.lastFailureAt ?? null },
      { name: 'failing_from', type: 'text', value: (u) => u.failingFrom ?? null },
      {
        name: 'failing_goes_on',
        type: 'integer',
        value: (u) => (u.failingFrom !== undefined && u.lastSuccessAt === undefined ? 1 : 0),
      },
    ]);
    await sql`${values}
      update webhook_subscriptions set
        last_delivery_at = v.delivery_at,
        last_success_at = coalesce(v.success_at, webhook_subscriptions.last_success_at),
        last_failure_at = coalesce(v.failure_at, webhook_subscriptions.last_failure_at),
        failing_since = case when v.failing_goes_on = 1
          then coalesce(webhook_subscriptions.failing_since, v.failing_from)
          else v.failing_from end
      from v
      where webhook_subscriptions.id = v.id`.execute(db);
  }
}
