/** The admin interface's delivery statistics for a period: figures, hourly charts, by event, errors. */
import { useMemo } from 'preact/hooks';
import { Chart, PALETTE } from '../../components/chart.tsx';
import { Empty, ErrorNotice, Field, inputValue, Loading, Section, Stat } from '../../components/ui.tsx';
import { formatNumber, formatPercent, formatTime } from '../../format.ts';
import { useLive, useResource } from '../../hooks.ts';
import { useSearch } from '../../router.ts';
import { api } from '../../session.ts';

interface Stats {
  period: string;
  summary: {
    total_deliveries: number;
    successful: number;
    failed: number;
    success_rate: number;
    avg_latency_ms: number;
    p95_latency_ms: number;
    p99_latency_ms: number;
  };
  by_event: Array<{ event: string; count: number; success_rate: number }>;
  by_hour: Array<{ hour: string; deliveries: number; success_rate: number }>;
  errors: { timeout: number; connection_refused: number; '5xx': number };
}

const PERIODS = [
  { id: 'hour', label: 'Last hour' },
  { id: 'day', label: 'Last 24 hours' },
  { id: 'week', label: 'Last 7 days' },
  { id: 'month', label: 'Last 30 days' },
];

export function WebhookStats(props: { webhookId: string }) {
  const [search, setSearch] = useSearch();
  const period = search.get('period') ?? 'day';
  const stats = useResource(
    (signal) =>
      api.get<Stats>(
        `/api/v1/webhooks/${encodeURIComponent(props.webhookId)}/stats?period=${period}`,
        signal,
      ),
    [props.webhookId, period],
  );
  useLive(stats.reload, ['webhook_delivery'], 30_000);
  return (
    <Section
      title="Statistics"
      id="webhook-stats-heading"
      actions={
        <Field label="Period">
          <select
            data-testid="stats-period"
            value={period}
            onChange={(e) => setSearch({ period: inputValue(e) === 'day' ? undefined : inputValue(e) })}
          >
            {PERIODS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </select>
        </Field>
      }
    >
      <div data-testid="webhook-stats">
        {stats.error !== undefined && (
          <ErrorNotice error={stats.error} onRetry={stats.reload} title="The statistics did not load" />
        )}
        {!stats.data && stats.loading && <Loading label="Loading statistics…" />}
        {stats.data && stats.data.summary.total_deliveries === 0 && (
          <Empty title="No delivery attempts in this period">
            Choose a longer period, or send a test to see figures.
          </Empty>
        )}
        {stats.data && stats.data.summary.total_deliveries > 0 && <StatsBody stats={stats.data} />}
      </div>
    </Section>
  );
}

function StatsBody(props: { stats: Stats }) {
  const { summary, errors } = props.stats;
  const rate = summary.success_rate;
  return (
    <>
      <p class="muted small">Counted per attempt: a delivery retried three times counts three times.</p>
      <div class="stats">
        <Stat label="Attempts" value={formatNumber(summary.total_deliveries)} testId="stats-total" />
        <Stat label="Succeeded" value={formatNumber(summary.successful)} tone="ok" />
        <Stat
          label="Failed"
          value={formatNumber(summary.failed)}
          tone={summary.failed > 0 ? 'bad' : undefined}
        />
        <Stat
          label="Success rate"
          value={formatPercent(rate)}
          tone={rate >= 0.99 ? 'ok' : rate >= 0.9 ? 'warn' : 'bad'}
        />
        <Stat label="Average latency" value={`${formatNumber(summary.avg_latency_ms)} ms`} />
        <Stat
          label="p95 / p99 latency"
          value={`${formatNumber(summary.p95_latency_ms)} / ${formatNumber(summary.p99_latency_ms)} ms`}
        />
      </div>
      <HourlyCharts byHour={props.stats.by_hour} period={props.stats.period} />
      <div class="grid-2">
        <ByEvent rows={props.stats.by_event} />
        <div>
          <h3>Errors</h3>
          <div class="table-wrap">
            <table class="table" data-testid="stats-errors">
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col" class="num">
                    Attempts
                  </th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <td>Timed out</td>
                  <td class="num">{formatNumber(errors.timeout)}</td>
                </tr>
                <tr>
                  <td>Connection refused</td>
                  <td class="num">{formatNumber(errors.connection_refused)}</td>
                </tr>
                <tr>
                  <td>Server error (5xx)</td>
                  <td class="num">{formatNumber(errors['5xx'])}</td>
                </tr>
              </tbody>
            </table>
          </div>
        </div>
      </div>
    </>
  );
}

const HOUR_S = 3600;
const PERIOD_HOURS: Record<string, number> = { hour: 2, day: 24, week: 168, month: 720 };

/**
 * Every hour of the period on the x axis, the hours without attempts as zero deliveries and no
 * success rate (the answer lists only the hours that had some), so the axis spans the period.
 */
function hourly(rows: Stats['by_hour'], period: string) {
  const byTime = new Map(rows.map((r) => [Math.floor(new Date(r.hour).getTime() / 1000), r]));
  const last = Math.floor(Date.now() / 1000 / HOUR_S) * HOUR_S;
  const first = last - ((PERIOD_HOURS[period] ?? 24) - 1) * HOUR_S;
  const x: number[] = [];
  const count: number[] = [];
  const rate: Array<number | null> = [];
  for (let t = Math.min(first, ...byTime.keys()); t <= last; t += HOUR_S) {
    const row = byTime.get(t);
    x.push(t);
    count.push(row?.deliveries ?? 0);
    rate.push(row && row.deliveries > 0 ? row.success_rate * 100 : null);
  }
  return { count: [x, count] as [number[], number[]], rate: [x, rate] as [number[], Array<number | null>] };
}

function HourlyCharts(props: { byHour: Stats['by_hour']; period: string }) {
  const rows = props.byHour;
  const data = useMemo(() => hourly(rows, props.period), [rows, props.period]);
  if (rows.length === 0) return null;
  return (
    <>
      <div class="grid-2">
        <div>
          <h3>Attempts by hour</h3>
          <Chart
            label="Delivery attempts by hour"
            time
            data={data.count}
            series={[{ label: 'Attempts', stroke: PALETTE[0]!, bars: true }]}
            height={200}
          />
        </div>
        <div>
          <h3>Success rate by hour</h3>
          <Chart
            label="Delivery success rate by hour, in percent"
            time
            data={data.rate}
            series={[{ label: 'Success rate', stroke: PALETTE[1]! }]}
            formatY={(v) => `${Math.round(v)}%`}
            height={200}
          />
        </div>
      </div>
      <details class="chart-table">
        <summary>The hourly figures as a table</summary>
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Hour</th>
                <th scope="col" class="num">
                  Attempts
                </th>
                <th scope="col" class="num">
                  Success rate
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.hour}>
                  <td>
                    {formatTime(r.hour)}{' '}
                    {new Date(r.hour).toLocaleDateString('en-US', { month: 'short', day: 'numeric' })}
                  </td>
                  <td class="num">{formatNumber(r.deliveries)}</td>
                  <td class="num">{formatPercent(r.success_rate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}

function ByEvent(props: { rows: Stats['by_event'] }) {
  return (
    <div>
      <h3>By event</h3>
      <div class="table-wrap">
        <table class="table" data-testid="stats-by-event">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col" class="num">
                Attempts
              </th>
              <th scope="col" class="num">
                Success rate
              </th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((r) => (
              <tr key={r.event}>
                <td>
                  <code>{r.event}</code>
                </td>
                <td class="num">{formatNumber(r.count)}</td>
                <td class="num">{formatPercent(r.success_rate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
