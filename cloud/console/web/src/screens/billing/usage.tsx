/** Metered usage of the subscription: a summary per metric and its course over the chosen range. */
import { useState } from 'preact/hooks';
import { Chart, PALETTE } from '../../components/chart.tsx';
import { Empty, ErrorNotice, Field, inputValue, ProgressBar, Section } from '../../components/ui.tsx';
import { formatDateTime, formatNumber } from '../../format.ts';
import { useResource } from '../../hooks.ts';
import { type Subscription, type UsageSummary, usageOf } from './billing-api.ts';

export type UsageRange = 'period' | '7d' | '30d' | '12w' | '6m';

export const RANGES: Array<{ id: UsageRange; label: string }> = [
  { id: 'period', label: 'This billing period, by day' },
  { id: '7d', label: 'Last 7 days, by day' },
  { id: '30d', label: 'Last 30 days, by day' },
  { id: '12w', label: 'Last 12 weeks, by week' },
  { id: '6m', label: 'Last 6 months, by month' },
];

interface Bucket {
  start: Date;
  end: Date;
  label: string;
}

const addDays = (d: Date, days: number) =>
  new Date(d.getFullYear(), d.getMonth(), d.getDate() + days, d.getHours(), d.getMinutes());
const addMonths = (d: Date, months: number) =>
  new Date(d.getFullYear(), d.getMonth() + months, d.getDate(), d.getHours(), d.getMinutes());
const dayLabel = (d: Date) => d.toLocaleDateString('en-US', { month: 'short', day: 'numeric' });

/** Buckets in the viewer's own days; the billing period is taken as the month before its end (the API gives no start). */
export function bucketsOf(range: UsageRange, subscription: Subscription, now = new Date()): Bucket[] {
  const tomorrow = addDays(new Date(now.getFullYear(), now.getMonth(), now.getDate()), 1);
  const steps: Record<Exclude<UsageRange, 'period'>, [number, (d: Date, n: number) => Date]> = {
    '7d': [7, addDays],
    '30d': [30, addDays],
    '12w': [12, (d, n) => addDays(d, 7 * n)],
    '6m': [6, addMonths],
  };
  if (range === 'period') {
    const end = new Date(subscription.current_period_end);
    const start = addMonths(end, -1);
    const last = end < now ? end : now;
    const buckets: Bucket[] = [];
    for (let from = start; from < last; from = addDays(from, 1))
      buckets.push({
        start: from,
        end: addDays(from, 1) < end ? addDays(from, 1) : end,
        label: dayLabel(from),
      });
    return buckets;
  }
  const [count, step] = steps[range];
  const first = range === '6m' ? new Date(now.getFullYear(), now.getMonth() - 5, 1) : step(tomorrow, -count);
  return Array.from({ length: count }, (_, i) => {
    const start = step(first, i);
    const label =
      range === '6m'
        ? start.toLocaleDateString('en-US', { month: 'short', year: 'numeric' })
        : dayLabel(start);
    return { start, end: step(first, i + 1), label };
  });
}

interface MetricUsage {
  total: UsageSummary;
  series: number[];
}

/** Runs the tasks four at a time, reporting each one done. */
async function limited<T>(tasks: Array<() => Promise<T>>, onDone: () => void): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
      onDone();
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, tasks.length) }, worker));
  return results;
}

function UsageTable(props: { metrics: string[]; usage: MetricUsage[] }) {
  return (
    <div class="table-wrap">
      <table class="table billing-table">
        <caption class="visually-hidden">Usage per metric over the range</caption>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col" class="num">
              Total
            </th>
            <th scope="col" class="num">
              Records
            </th>
            <th scope="col" class="num">
              Smallest
            </th>
            <th scope="col" class="num">
              Largest
            </th>
            <th scope="col" class="num">
              Average
            </th>
            <th scope="col">Last record</th>
          </tr>
        </thead>
        <tbody>
          {props.usage.map(({ total }, i) => (
            <tr key={props.metrics[i]}>
              <th scope="row">
                <code>{props.metrics[i]}</code>
              </th>
              <td class="num">{formatNumber(total.total_quantity)}</td>
              <td class="num">{formatNumber(total.record_count)}</td>
              <td class="num">{formatNumber(total.min_quantity)}</td>
              <td class="num">{formatNumber(total.max_quantity)}</td>
              <td class="num">{formatNumber(total.average_quantity, 1)}</td>
              <td>{formatDateTime(total.last_record_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function UsageCharts(props: {
  metrics: string[];
  usage: MetricUsage[];
  buckets: Bucket[];
  rangeLabel: string;
}) {
  const labels = props.buckets.map((b) => b.label);
  return (
    <div class="billing-usage-charts">
      {props.usage.map((u, i) => {
        const metric = props.metrics[i]!;
        const color = PALETTE[i % PALETTE.length]!;
        return (
          <div class="billing-usage-chart" key={metric}>
            <h3>
              <code>{metric}</code>
            </h3>
            {u.total.record_count === 0 ? (
              <p class="muted small">
                Nothing recorded for this metric in this range: check the metric's name as your integration
                reports it.
              </p>
            ) : (
              <Chart
                label={`Usage of ${metric}, ${props.rangeLabel.toLowerCase()}`}
                data={[labels.map((_, x) => x), u.series]}
                series={[{ label: metric, stroke: color, fill: `${color}33` }]}
                xLabels={labels}
                formatY={(v) => formatNumber(v)}
                height={180}
              />
            )}
          </div>
        );
      })}
    </div>
  );
}

function UsageResult(props: { subscription: Subscription; metrics: string[]; range: UsageRange }) {
  const { subscription, metrics, range } = props;
  const [progress, setProgress] = useState({ done: 0, total: 0 });
  const buckets = bucketsOf(range, subscription);
  const rangeLabel = RANGES.find((r) => r.id === range)?.label ?? '';
  const result = useResource(
    async (signal) => {
      const first = buckets[0]?.start ?? new Date();
      const last = buckets[buckets.length - 1]?.end ?? new Date();
      const tasks = metrics.flatMap((metric) => [
        () => usageOf(subscription.id, metric, first, last, signal),
        ...buckets.map((b) => () => usageOf(subscription.id, metric, b.start, b.end, signal)),
      ]);
      let done = 0;
      setProgress({ done, total: tasks.length });
      const answers = await limited(tasks, () => setProgress({ done: ++done, total: tasks.length }));
      const per = buckets.length + 1;
      return metrics.map((_, m) => ({
        total: answers[m * per]!,
        series: answers.slice(m * per + 1, (m + 1) * per).map((a) => a.total_quantity),
      }));
    },
    [subscription.id, metrics.join(','), range],
  );
  if (result.error && !result.data)
    return <ErrorNotice error={result.error} onRetry={result.reload} title="The usage could not be loaded" />;
  if (!result.data || result.loading)
    return (
      <div class="billing-progress">
        <span class="small muted">
          Adding up usage: {progress.done} of {progress.total || '…'} ranges
        </span>
        <ProgressBar label="Adding up usage" value={progress.total ? progress.done / progress.total : null} />
      </div>
    );
  return (
    <>
      <UsageTable metrics={metrics} usage={result.data} />
      <UsageCharts metrics={metrics} usage={result.data} buckets={buckets} rangeLabel={rangeLabel} />
    </>
  );
}

export function UsageSection(props: {
  subscription: Subscription;
  metrics: string[];
  range: UsageRange;
  onChange: (next: { metrics: string[]; range: UsageRange }) => void;
}) {
  const [draft, setDraft] = useState(props.metrics.join(', '));
  const parse = (text: string) =>
    [
      ...new Set(
        text
          .split(',')
          .map((m) => m.trim())
          .filter((m) => m && m.length <= 100),
      ),
    ].slice(0, 8);
  return (
    <Section title="Usage">
      <div data-testid="billing-usage">
        <form
          class="toolbar"
          onSubmit={(event) => {
            event.preventDefault();
            props.onChange({ metrics: parse(draft), range: props.range });
          }}
        >
          <Field label="Metrics">
            <input value={draft} onInput={(e) => setDraft(inputValue(e))} data-testid="usage-metrics" />
          </Field>
          <button type="submit" class="btn">
            Show
          </button>
          <Field label="Range">
            <select
              value={props.range}
              onChange={(e) => props.onChange({ metrics: props.metrics, range: inputValue(e) as UsageRange })}
            >
              {RANGES.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.label}
                </option>
              ))}
            </select>
          </Field>
        </form>
        <p class="muted small">
          Metric names as your integration reports them, separated by commas (up to 8).
        </p>
        {props.metrics.length === 0 ? (
          <Empty title="No metric to show">
            Type the name of a metered metric (for example orders) and choose Show.
          </Empty>
        ) : (
          <UsageResult subscription={props.subscription} metrics={props.metrics} range={props.range} />
        )}
      </div>
    </Section>
  );
}
