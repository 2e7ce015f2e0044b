/** One metric over time, by day, week or month, for the tenant or one brand. */
import { Chart, PALETTE } from '../../components/chart.tsx';
import { Empty, ErrorNotice, Field, inputValue, Loading, Pill, Stat } from '../../components/ui.tsx';
import { useResource } from '../../hooks.ts';
import { href } from '../../router.ts';
import { axisNumber, formatFigure, moneyFormat, percent } from './figures.ts';
import type { Period } from './period.ts';
import {
  currenciesOf,
  listAll,
  type MetricEntry,
  metricCatalog,
  type Named,
  pnl,
  type Trend,
} from './pnl-api.ts';

export type Granularity = 'day' | 'week' | 'month';
const GRANULARITIES: Array<{ id: Granularity; label: string }> = [
  { id: 'day', label: 'By day' },
  { id: 'week', label: 'By week (from Monday)' },
  { id: 'month', label: 'By month' },
];

export interface TrendChoice {
  metric: string;
  granularity: Granularity;
  brandId: string;
}

const dayLabel = (day: string, granularity: Granularity) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString('en-US', {
    timeZone: 'UTC',
    month: 'short',
    ...(granularity === 'month' ? { year: 'numeric' } : { day: 'numeric' }),
  });

const DIRECTION = { up: 'ok', down: 'bad', flat: 'neutral' } as const;

function TrendResult(props: { choice: TrendChoice; period: Period; entry: MetricEntry | undefined }) {
  const { choice, period } = props;
  const result = useResource(
    (signal) =>
      Promise.all([
        pnl<Trend>('trend', {
          start_date: period.start,
          end_date: period.end,
          metric: choice.metric,
          granularity: choice.granularity,
          ...(choice.brandId ? { brand_id: choice.brandId } : {}),
        }),
        currenciesOf(choice.brandId ? { brand_id: choice.brandId } : {}, signal),
      ]),
    [choice.metric, choice.granularity, choice.brandId, period.start, period.end],
  );
  if (result.error && !result.data)
    return <ErrorNotice error={result.error} onRetry={result.reload} title="The trend could not be loaded" />;
  if (!result.data) return <Loading label="Loading the trend…" />;
  const [trend, currencies] = result.data;
  const isPercent = props.entry?.type === 'percentage';
  const money = moneyFormat(currencies);
  const show = (value: number) => formatFigure(money, value, isPercent);
  const label = props.entry?.label ?? trend.metric;
  if (trend.data_points.every((p) => p.value === 0))
    return (
      <Empty title={`No ${label.toLowerCase()} in this period`}>
        No sales in this period: pick another period, or check that stores are syncing on the{' '}
        <a href={href('/stores')}>Stores</a> screen.
      </Empty>
    );
  const labels = trend.data_points.map((p) => dayLabel(p.date, trend.granularity));
  return (
    <div aria-busy={result.loading}>
      <div class="stats">
        <Stat label="Lowest" value={show(trend.summary.min)} />
        <Stat label="Highest" value={show(trend.summary.max)} />
        <Stat label="Average" value={show(trend.summary.avg)} />
        <Stat
          label="First to last"
          value={
            <>
              {percent(trend.summary.change_pct)}{' '}
              <Pill tone={DIRECTION[trend.summary.trend_direction]}>{trend.summary.trend_direction}</Pill>
            </>
          }
        />
      </div>
      <div class="pnl-layout">
        <section class="card" aria-label="Trend chart">
          <div data-testid="pnl-chart">
            <Chart
              label={`${label} ${GRANULARITIES.find((g) => g.id === trend.granularity)?.label.toLowerCase()}, ${labels[0]} to ${labels[labels.length - 1]}`}
              data={[trend.data_points.map((_, i) => i), trend.data_points.map((p) => p.value)]}
              series={[{ label, stroke: PALETTE[0]! }]}
              xLabels={labels}
              formatY={isPercent ? (v) => `${v}%` : axisNumber}
              height={260}
            />
          </div>
        </section>
        <section class="card pnl-statement" aria-label="Trend figures">
          <div class="table-wrap">
            <table class="table pnl-table" data-testid="pnl-table">
              <caption class="visually-hidden">{label} per period</caption>
              <thead>
                <tr>
                  <th scope="col">From</th>
                  <th scope="col" class="num">
                    {label}
                  </th>
                </tr>
              </thead>
              <tbody>
                {trend.data_points.map((p, i) => (
                  <tr key={p.date}>
                    <th scope="row">{labels[i]}</th>
                    <td class="num">{show(p.value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      </div>
    </div>
  );
}

export function TrendTab(props: {
  period: Period;
  choice: TrendChoice;
  onChange: (next: TrendChoice) => void;
}) {
  const options = useResource(
    (signal) => Promise.all([metricCatalog(signal), listAll<Named>('/v1/platform/brands', signal)]),
    [],
  );
  if (options.error)
    return (
      <ErrorNotice
        error={options.error}
        onRetry={options.reload}
        title="The metrics and brands could not be loaded"
      />
    );
  if (!options.data) return <Loading />;
  const [metrics, brands] = options.data;
  const { choice } = props;
  return (
    <>
      <div class="toolbar">
        <Field label="Metric">
          <select
            value={choice.metric}
            onChange={(e) => props.onChange({ ...choice, metric: inputValue(e) })}
            data-testid="trend-metric"
          >
            {metrics.map((m) => (
              <option key={m.name} value={m.name}>
                {m.label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Granularity">
          <select
            value={choice.granularity}
            onChange={(e) => props.onChange({ ...choice, granularity: inputValue(e) as Granularity })}
            data-testid="period-granularity"
          >
            {GRANULARITIES.map((g) => (
              <option key={g.id} value={g.id}>
                {g.label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Brand">
          <select
            value={choice.brandId}
            onChange={(e) => props.onChange({ ...choice, brandId: inputValue(e) })}
          >
            <option value="">All brands</option>
            {brands.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <TrendResult
        choice={choice}
        period={props.period}
        entry={metrics.find((m) => m.name === choice.metric)}
      />
    </>
  );
}
