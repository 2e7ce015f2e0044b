/**
 * A store back online with a backlog: one sync round, as the worker runs it (pull, then push the
 * whole outbox with batches in flight), timed end to end, then checked against the cloud.
 */
import { round } from '../lib/load.ts';
import { type BenchAppliance, unanswered } from './appliance.ts';
import { type CloudRequests, type MeasureContext, observed, pushesAnswered } from './observe.ts';
import { agreementProblems, outcomes } from './verify.ts';

export interface BacklogMeasurement {
  /** Outbox rows waiting when the store came back. */
  records: number;
  seconds: number;
  records_per_sec: number;
  /**
   * The rate through each tenth of the backlog, first to last (from the cloud's count of pushes,
   * sampled every second): whether a batch costs more while more is still waiting.
   */
  records_per_sec_by_tenth: number[];
  /** How the cloud answered every outbox row the store ever wrote. */
  outcomes: Record<string, number>;
  cloud: CloudRequests;
}

/** The first round of a store that was just provisioned: an empty snapshot, and its settings pushed. */
export async function connect(app: BenchAppliance) {
  await app.client.sync();
}

const SAMPLE_MS = 1000;

/** Samples how many pushes the cloud has answered, with the time, until stopped. */
function sampleProgress(cloudUrl: string) {
  const started = performance.now();
  const samples: Array<[number, number]> = [];
  let sampling = Promise.resolve();
  const take = () => {
    sampling = pushesAnswered(cloudUrl).then(
      (pushes) => void samples.push([(performance.now() - started) / 1000, pushes]),
      () => undefined,
    );
  };
  take();
  const timer = setInterval(take, SAMPLE_MS);
  return async (seconds: number, finalPushes: number) => {
    clearInterval(timer);
    await sampling;
    samples.push([seconds, finalPushes]);
    return samples;
  };
}

/** When the answered records crossed each tenth of the backlog, interpolated between samples. */
function ratesByTenth(samples: Array<[number, number]>, records: number, batchSize: number) {
  const first = samples[0]?.[1] ?? 0;
  const points = samples.map(
    ([at, pushes]) => [at, Math.min(records, (pushes - first) * batchSize)] as const,
  );
  const crossing = (target: number) => {
    const after = points.findIndex(([, done]) => done >= target);
    const [t1, d1] = points[after] ?? points.at(-1)!;
    const [t0, d0] = points[after - 1] ?? [0, 0];
    return d1 === d0 ? t1 : t0 + ((target - d0) / (d1 - d0)) * (t1 - t0);
  };
  const times = [0, ...Array.from({ length: 10 }, (_, i) => crossing(((i + 1) * records) / 10))];
  return times.slice(1).map((t, i) => round(records / 10 / Math.max(t - times[i]!, 0.001), 0));
}

export async function measureBacklog(
  context: MeasureContext,
  app: BenchAppliance,
  measure: string,
): Promise<BacklogMeasurement> {
  const records = unanswered(app.db);
  const { result, cloud } = await observed(context, measure, async () => {
    const progress = sampleProgress(context.cloudUrl);
    const started = performance.now();
    await app.client.sync();
    const seconds = (performance.now() - started) / 1000;
    return { seconds, samples: await progress(seconds, await pushesAnswered(context.cloudUrl)) };
  });
  const { seconds } = result;
  const label = `${context.backend} ${measure}`;
  const state = await context.control.state(app.store.location_id);
  context.problems.push(...agreementProblems(label, app, state));
  const answers = outcomes(app.db);
  const other = Object.entries(answers).filter(([outcome]) => outcome !== 'applied');
  if (other.length > 0)
    context.problems.push(
      `${label}: answered other than applied: ${JSON.stringify(Object.fromEntries(other))}`,
    );
  return {
    records,
    seconds: round(seconds, 2),
    records_per_sec: round(records / seconds, 0),
    records_per_sec_by_tenth: ratesByTenth(result.samples, records, app.config.sync.batchSize),
    outcomes: answers,
    cloud,
  };
}
