import { useMemo } from 'preact/hooks';
import { AXIS, Chart } from '../../components/chart.tsx';
import { formatChange, formatMinor } from '../../lib/format.ts';
import { wallTime } from '../../lib/zone.ts';
import { useStore } from '../../store.ts';
import type { SalesToday } from '../../types.ts';

function HourlyChart(props: { sales: SalesToday }) {
  const timeZone = useStore((s) => s.timeZone);
  const data = useMemo(() => {
    const hours = props.sales.by_hour;
    // Today's line stops at the hour it is now in the store rather than dropping to zero for hours to come.
    const current = wallTime(Date.now(), timeZone).hour;
    return [
      hours.map((h) => h.hour),
      hours.map((h) => (h.hour > current ? null : h.today_minor / 100)),
      hours.map((h) => h.last_week_minor / 100),
    ] as [number[], Array<number | null>, number[]];
  }, [props.sales, timeZone]);
  if (props.sales.by_hour.length === 0) return null;
  return (
    <>
      <Chart
        label="Sales by hour, today against the same day last week"
        data={data}
        height={140}
        scales={{ x: { time: false } }}
        series={[
          { label: 'Today', stroke: '#4ea1ff', fill: 'rgba(78,161,255,0.15)' },
          { label: 'Last week', stroke: '#8b949e', dash: [6, 4] },
        ]}
        legend={false}
        axes={[{ ...AXIS, font: '13px system-ui, sans-serif' }, { show: false }]}
      />
      <div class="chart-key" aria-hidden="true">
        <span class="key-today">━ today by hour</span>
        <span>┅ last week</span>
      </div>
    </>
  );
}

export function SalesPanel(props: { sales: SalesToday | undefined; error: Error | undefined }) {
  const { sales } = props;
  if (!sales)
    return (
      <section class="sales" aria-label="Today’s sales">
        <p class="muted">{props.error ? `Sales unavailable: ${props.error.message}` : 'Loading sales…'}</p>
      </section>
    );
  const money = (minor: number) => formatMinor(minor, sales.currency);
  const change = sales.change_pct;
  return (
    <section class="sales" aria-label="Today’s sales">
      <div class="figures">
        <div class="figure-card">
          <span class="figure-label">Sales today</span>
          <span class="figure" data-testid="sales-today">
            {money(sales.sales_minor)}
          </span>
          <span
            class={`change ${change === null ? '' : change >= 0 ? 'up' : 'down'}`}
            data-testid="sales-change"
          >
            {formatChange(change)} vs last{' '}
            {new Date(`${sales.last_week.business_day}T12:00:00`).toLocaleDateString([], { weekday: 'long' })}
          </span>
          <span class="muted">Last week to this time: {money(sales.last_week.to_same_time_minor)}</span>
        </div>
        <div class="figure-card">
          <span class="figure-label">Orders</span>
          <span class="figure" data-testid="sales-orders">
            {sales.orders}
          </span>
          <span class="muted">last week: {sales.last_week.orders}</span>
        </div>
        <div class="figure-card">
          <span class="figure-label">Average ticket</span>
          <span class="figure" data-testid="sales-average">
            {money(sales.average_ticket_minor)}
          </span>
        </div>
        <div class="figure-card chart-card">
          <HourlyChart sales={sales} />
        </div>
      </div>
    </section>
  );
}
