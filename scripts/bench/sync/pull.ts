/**
 * A store catching up with head office: the cloud wrote a feed of changes for it (before the
 * measure), and one round pulls and applies them page by page, each page in one transaction with
 * its cursor.
 */
import { round } from '../lib/load.ts';
import type { BenchAppliance } from './appliance.ts';
import type { FeedWritten } from './control.ts';
import { type CloudRequests, type MeasureContext, observed } from './observe.ts';
import { agreementProblems, stockProblems } from './verify.ts';

export interface PullMeasurement {
  changes: number;
  seconds: number;
  rows_per_sec: number;
  /** How fast the cloud wrote the feed, one writeFromCloud each (seeding; not a goal). */
  cloud_writes_per_sec: number;
  cloud: CloudRequests;
}

function landedProblems(label: string, app: BenchAppliance, feed: FeedWritten) {
  const { db } = app;
  const total = (sql: string) => (db.prepare(sql).get() as { n: number | null }).n ?? 0;
  const prices = total('select sum(price_minor) as n from menu_items');
  const moved = total('select sum(delta_milli) as n from inventory_movements');
  return [
    ...(prices === feed.price_sum
      ? []
      : [`${label}: menu prices add up to ${prices}, the cloud wrote ${feed.price_sum}`]),
    ...(moved === feed.delta_sum
      ? []
      : [`${label}: movements add up to ${moved}, the cloud wrote ${feed.delta_sum}`]),
  ];
}

export async function measurePull(
  context: MeasureContext,
  app: BenchAppliance,
  feed: FeedWritten,
): Promise<PullMeasurement> {
  const { result, cloud } = await observed(context, 'pull', async () => {
    const started = performance.now();
    const { pulled } = await app.client.sync();
    return { pulled, seconds: (performance.now() - started) / 1000 };
  });
  const label = `${context.backend} pull`;
  if (result.pulled !== feed.written)
    context.problems.push(`${label}: pulled ${result.pulled} changes, the cloud wrote ${feed.written}`);
  const state = await context.control.state(app.store.location_id);
  context.problems.push(
    ...agreementProblems(label, app, state),
    ...stockProblems(label, app.db),
    ...landedProblems(label, app, feed),
  );
  return {
    changes: result.pulled,
    seconds: round(result.seconds, 2),
    rows_per_sec: round(result.pulled / result.seconds, 0),
    cloud_writes_per_sec: round(feed.written / feed.seconds, 0),
    cloud,
  };
}
