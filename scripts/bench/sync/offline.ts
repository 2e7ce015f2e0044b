/**
 * 72 hours offline: a store synced its menu, stock, recipes and first shifts, then piled up three
 * days of trading without the cloud (written as a backlog: see seedOfflinePeriod) while head office
 * repriced items the store also repriced (server_wins conflicts), payroll corrected punches the
 * store's managers corrected too (merges) and deliveries were booked in the cloud (movements).
 * Measured: the time from reconnecting until the outbox is fully answered and the pull cursor is at
 * the feed's end; then the two sides are compared row for row.
 */
import type { ApplianceDatabase } from '../../../appliance/db/index.ts';
import { round } from '../lib/load.ts';
import { type BenchAppliance, unanswered, withoutFsync } from './appliance.ts';
import { type CloudRequests, type MeasureContext, observed } from './observe.ts';
import { type StoreBase, seedOfflinePeriod, seedStoreBase } from './seed.ts';
import { agreementProblems, fieldProblems, outcomes, stockProblems, sumOf } from './verify.ts';

export interface OfflineMeasurement {
  /** Outbox rows the store wrote offline, and the orders among its business. */
  appliance_changes: number;
  orders: number;
  cloud_edits: number;
  seconds_to_converge: number;
  rounds: number;
  pulled: number;
  pushed: number;
  conflicts: number;
  /** How the cloud answered every outbox row the store ever wrote. */
  outcomes: Record<string, number>;
  cloud: CloudRequests;
}

// Converging takes one round; a few more would be a finding, more than this a failure.
const MAX_ROUNDS = 5;

const cursorOf = (db: ApplianceDatabase) =>
  (db.prepare('select cursor from sync_state where id = 1').get() as { cursor: number }).cursor;

/**
 * Head office reprices every other item from the first: the store reprices the first ones too, so
 * those conflict, and the rest reach the store by pull.
 */
function editsFor(context: MeasureContext, base: StoreBase) {
  const { prices, corrections, restocks } = context.plan.cloudEdits;
  return {
    menu_item_ids: base.menu.filter((_, i) => i % 2 === 0).slice(0, prices),
    punch_ids: base.punches,
    corrections,
    inventory_item_ids: base.stock,
    restocks,
  };
}

/** Rounds until nothing is left to push and nothing to pull. */
async function converge(context: MeasureContext, app: BenchAppliance) {
  const started = performance.now();
  const totals = { rounds: 0, pulled: 0, pushed: 0, conflicts: 0 };
  for (;;) {
    const result = await app.client.sync();
    totals.rounds += 1;
    totals.pulled += result.pulled;
    totals.pushed += result.pushed;
    totals.conflicts += result.conflicts;
    const { feed_seq } = await context.control.state(app.store.location_id);
    if (unanswered(app.db) === 0 && cursorOf(app.db) === feed_seq) break;
    if (totals.rounds >= MAX_ROUNDS) throw new Error(`not converged after ${MAX_ROUNDS} rounds`);
  }
  return { ...totals, seconds: (performance.now() - started) / 1000 };
}

async function verify(context: MeasureContext, app: BenchAppliance) {
  const label = `${context.backend} 72h offline`;
  const { control } = context;
  const locationId = app.store.location_id;
  const movements = await control.rows(locationId, 'inventory_movements');
  const localMoved = (
    app.db.prepare('select sum(delta_milli) as n from inventory_movements').get() as { n: number }
  ).n;
  context.problems.push(
    ...agreementProblems(label, app, await control.state(locationId)),
    ...stockProblems(label, app.db),
    ...fieldProblems(label, app.db, 'menu_items', await control.rows(locationId, 'menu_items')),
    ...fieldProblems(label, app.db, 'time_punches', await control.rows(locationId, 'time_punches')),
    ...(sumOf(movements, 'delta_milli') === localMoved
      ? []
      : [
          `${label}: the cloud's movements add up to ${sumOf(movements, 'delta_milli')}, the store's to ${localMoved}`,
        ]),
  );
}

export async function measureOffline(
  context: MeasureContext,
  app: BenchAppliance,
): Promise<OfflineMeasurement> {
  const base = await withoutFsync(app.db, () => seedStoreBase(app));
  await app.client.sync();
  const [offline, edits] = await Promise.all([
    withoutFsync(app.db, () => seedOfflinePeriod(app, base, context.plan.offlineChanges)),
    context.control.writeEdits(app.store.location_id, editsFor(context, base)),
  ]);
  const { result, cloud } = await observed(context, 'offline_72h', () => converge(context, app));
  await verify(context, app);
  return {
    appliance_changes: offline.changes,
    orders: offline.orders,
    cloud_edits: edits.written,
    seconds_to_converge: round(result.seconds, 2),
    rounds: result.rounds,
    pulled: result.pulled,
    pushed: result.pushed,
    conflicts: result.conflicts,
    outcomes: outcomes(app.db),
    cloud,
  };
}
