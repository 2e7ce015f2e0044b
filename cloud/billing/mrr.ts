/**
 * MRR movement from subscription events, replayed in time order. Pure.
 *
 * A subscription's MRR after an event is the event's `to_mrr_cents`; an event without it leaves
 * the MRR as it was, except `canceled` and `churned`, which take it to 0. The MRR before an event
 * is its `from_mrr_cents` when given, else the MRR the replay reached. Each event inside
 * [start, end) moves MRR by (after − before), classified:
 *   new: from 0 to more, for a subscription never seen with MRR before;
 *   reactivation: from 0 to more, for one that had MRR earlier (or a `reactivated`/`resumed` event);
 *   expansion / contraction: from more than 0 to more / less, still above 0;
 *   churned: from more than 0 to 0 (the whole MRR lost), counted once per subscription as a
 *   churned customer.
 * start/end MRR: the sum over subscriptions at `start` and at `end`; customers: subscriptions with
 * MRR above 0 then. net_new = new + expansion + reactivation − contraction − churned.
 * churn_rate_pct = churned customers / customers at start × 100 (0 without customers), 2 decimals.
 */
import type { SubscriptionEventRow } from './tables.ts';

interface Movement {
  new_mrr_cents: number;
  expansion_mrr_cents: number;
  contraction_mrr_cents: number;
  churned_mrr_cents: number;
  reactivation_mrr_cents: number;
}

const ENDING = new Set(['canceled', 'churned']);
const RETURNING = new Set(['reactivated', 'resumed']);

function after(event: SubscriptionEventRow, before: number) {
  if (event.to_mrr_cents !== null) return Number(event.to_mrr_cents);
  return ENDING.has(event.event_type) ? 0 : before;
}

function classify(
  move: Movement,
  event: SubscriptionEventRow,
  before: number,
  next: number,
  hadMrr: boolean,
) {
  if (before === 0 && next > 0) {
    if (hadMrr || RETURNING.has(event.event_type)) move.reactivation_mrr_cents += next;
    else move.new_mrr_cents += next;
  } else if (before > 0 && next === 0) move.churned_mrr_cents += before;
  else if (next > before) move.expansion_mrr_cents += next - before;
  else if (next < before) move.contraction_mrr_cents += before - next;
}

const total = (mrr: Map<string, number>) => [...mrr.values()].reduce((sum, value) => sum + value, 0);
const paying = (mrr: Map<string, number>) => [...mrr.values()].filter((value) => value > 0).length;

/** `events`: oldest first; those from `end` on are ignored. */
export function mrrMetrics(events: SubscriptionEventRow[], start: string, end: string) {
  const startMs = Date.parse(start);
  const mrr = new Map<string, number>();
  const hadMrr = new Set<string>();
  const churned = new Set<string>();
  const move: Movement = {
    new_mrr_cents: 0,
    expansion_mrr_cents: 0,
    contraction_mrr_cents: 0,
    churned_mrr_cents: 0,
    reactivation_mrr_cents: 0,
  };
  let atStart: Map<string, number> | undefined;
  const endMs = Date.parse(end);
  for (const event of events) {
    const eventMs = Date.parse(event.event_at);
    if (eventMs >= endMs) break;
    if (atStart === undefined && eventMs >= startMs) atStart = new Map(mrr);
    const id = event.subscription_id;
    const current = mrr.get(id) ?? 0;
    const before = event.from_mrr_cents !== null ? Number(event.from_mrr_cents) : current;
    const next = after(event, before);
    if (atStart !== undefined) {
      classify(move, event, before, next, hadMrr.has(id));
      if (before > 0 && next === 0) churned.add(id);
    }
    mrr.set(id, next);
    if (next > 0 || before > 0) hadMrr.add(id);
  }
  const startMrr = atStart ?? new Map(mrr);
  const customersStart = paying(startMrr);
  const netNew =
    move.new_mrr_cents +
    move.expansion_mrr_cents +
    move.reactivation_mrr_cents -
    move.contraction_mrr_cents -
    move.churned_mrr_cents;
  return {
    start_mrr_cents: total(startMrr),
    end_mrr_cents: total(mrr),
    ...move,
    net_new_mrr_cents: netNew,
    churn_rate_pct: customersStart === 0 ? 0 : Math.round((churned.size / customersStart) * 10_000) / 100,
    customers_start: customersStart,
    customers_end: paying(mrr),
    churned_customers: churned.size,
  };
}
