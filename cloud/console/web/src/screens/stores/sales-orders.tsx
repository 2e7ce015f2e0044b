/** The store page's trade: sales so far today against last week, and the orders still open. */
import { useMemo, useState } from 'preact/hooks';
import { Chart, PALETTE } from '../../components/chart.tsx';
import { Empty, ErrorNotice, Loading, Pager, Pill, Section, Stat, type Tone } from '../../components/ui.tsx';
import { formatAgo, formatMoney, formatNumber, formatTime } from '../../format.ts';
import { useResource } from '../../hooks.ts';
import { href } from '../../router.ts';
import { api } from '../../session.ts';
import { repeated } from './data.ts';
import type { ItemPage, Order, OrderStatus, SalesToday } from './types.ts';

const OPEN_STATUSES: OrderStatus[] = ['open', 'sent', 'ready'];
const ORDERS_PAGE = 25;

const major = (minor: number) => minor / 100;
const hourLabel = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

export function useSalesToday(locationId: string, refresh: number) {
  return useResource(
    (signal) =>
      api.data<SalesToday>(`/v1/commerce/sales/today?location_id=${encodeURIComponent(locationId)}`, signal),
    [locationId, refresh],
  );
}

function changeTone(pct: number | null): Tone | undefined {
  if (pct === null) return undefined;
  return pct >= 0 ? 'ok' : 'bad';
}

function HourTable(props: { sales: SalesToday }) {
  const { sales } = props;
  return (
    <details class="by-hour">
      <summary>Sales by hour as a table</summary>
      <div class="table-wrap">
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Hour (store time)</th>
              <th scope="col" class="num">
                Today
              </th>
              <th scope="col" class="num">
                Same day last week
              </th>
            </tr>
          </thead>
          <tbody>
            {sales.by_hour.map((h) => (
              <tr key={h.hour}>
                <td>{hourLabel(h.hour)}</td>
                <td class="num">{formatMoney(major(h.today_minor), sales.currency)}</td>
                <td class="num">{formatMoney(major(h.last_week_minor), sales.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

function SalesFigures(props: { sales: SalesToday }) {
  const { sales } = props;
  const money = (minor: number) => formatMoney(major(minor), sales.currency);
  const data = useMemo(
    () =>
      [
        sales.by_hour.map((h) => h.hour),
        sales.by_hour.map((h) => major(h.today_minor)),
        sales.by_hour.map((h) => major(h.last_week_minor)),
      ] as [number[], number[], number[]],
    [sales],
  );
  const change =
    sales.change_pct === null ? '—' : `${sales.change_pct > 0 ? '+' : ''}${sales.change_pct.toFixed(1)}%`;
  return (
    <>
      <div class="stats">
        <Stat label={`Sales (${sales.business_day})`} value={money(sales.sales_minor)} />
        <Stat label="Orders" value={formatNumber(sales.orders)} />
        <Stat label="Average ticket" value={money(sales.average_ticket_minor)} />
        <Stat label="Against last week, same time" value={change} tone={changeTone(sales.change_pct)} />
      </div>
      <p class="muted small">
        Last week to the same time: {money(sales.last_week.to_same_time_minor)}; the whole of{' '}
        {sales.last_week.business_day}: {money(sales.last_week.sales_minor)} in{' '}
        {formatNumber(sales.last_week.orders)} orders.
      </p>
      <Chart
        label={`Sales by hour today against the same day last week, in ${sales.currency}`}
        data={data}
        xLabels={sales.by_hour.map((h) => hourLabel(h.hour))}
        series={[
          { label: 'Today', stroke: PALETTE[0]!, bars: true },
          { label: 'Last week', stroke: PALETTE[2]!, dash: [6, 4] },
        ]}
        height={180}
        formatY={(v) => formatMoney(v, sales.currency).replace(/\.00$/, '')}
      />
      <HourTable sales={sales} />
    </>
  );
}

export function SalesSection(props: { sales: ReturnType<typeof useSalesToday> }) {
  const { data, error, loading, reload } = props.sales;
  return (
    <Section title="Sales today">
      <div data-testid="sales-today">
        {error !== undefined && (
          <ErrorNotice error={error} title="Today's sales did not load" onRetry={reload} />
        )}
        {!data && loading && <Loading label="Loading today's sales…" />}
        {data && data.orders === 0 && data.sales_minor === 0 && (
          <Empty title="No sales yet today">
            The store has not reported a paid order on its business day {data.business_day}. Sales show here
            as soon as its appliance syncs the first paid order.
          </Empty>
        )}
        {data && (data.orders > 0 || data.sales_minor > 0) && <SalesFigures sales={data} />}
      </div>
    </Section>
  );
}

const STATUS_TONE: Record<OrderStatus, Tone> = {
  open: 'info',
  sent: 'warn',
  ready: 'ok',
  completed: 'neutral',
  cancelled: 'neutral',
};
const STATUS_LABEL: Record<OrderStatus, string> = {
  open: 'Open',
  sent: 'In the kitchen',
  ready: 'Ready',
  completed: 'Completed',
  cancelled: 'Cancelled',
};
const TYPE_LABEL: Record<Order['order_type'], string> = {
  dine_in: 'Dine in',
  takeout: 'Takeout',
  drive_thru: 'Drive-thru',
  delivery: 'Delivery',
};

function OrdersTable(props: {
  orders: Order[];
  timezone: string;
  currency: string | undefined;
  now: number;
}) {
  const money = (value: number) =>
    props.currency ? formatMoney(value, props.currency) : formatNumber(value, 2);
  return (
    <div class="table-wrap">
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
            <th scope="col">Table</th>
            <th scope="col" class="num">
              Items
            </th>
            <th scope="col" class="num">
              Total
            </th>
            <th scope="col">Opened</th>
          </tr>
        </thead>
        <tbody>
          {props.orders.map((order) => (
            <tr key={order.id} data-testid="open-order">
              <td>
                <a href={href(`/orders/${order.id}`)}>#{order.number}</a>
              </td>
              <td>{TYPE_LABEL[order.order_type]}</td>
              <td>
                <Pill tone={STATUS_TONE[order.status]}>{STATUS_LABEL[order.status]}</Pill>
              </td>
              <td>{order.table ?? '—'}</td>
              <td class="num">{formatNumber(order.items.reduce((n, i) => n + i.quantity, 0))}</td>
              <td class="num">{money(order.total)}</td>
              <td>
                {formatTime(order.created_at, props.timezone)}{' '}
                <span class="muted small">({formatAgo(order.created_at, props.now)})</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function OpenOrdersSection(props: {
  locationId: string;
  timezone: string;
  currency: string | undefined;
  refresh: number;
  now: number;
}) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const orders = useResource(
    (signal) =>
      api.data<ItemPage<Order>>(
        `/v1/commerce/orders${repeated({ location_id: props.locationId, limit: ORDERS_PAGE, cursor }, 'status', OPEN_STATUSES)}`,
        signal,
      ),
    [props.locationId, cursor, props.refresh],
  );
  const { data, error, loading, reload } = orders;
  return (
    <Section
      title="Open orders"
      actions={<a href={href(`/orders?location_id=${props.locationId}`)}>All orders</a>}
    >
      <div data-testid="open-orders">
        {error !== undefined && (
          <ErrorNotice error={error} title="Open orders did not load" onRetry={reload} />
        )}
        {!data && loading && <Loading label="Loading open orders…" />}
        {data && data.items.length === 0 && cursors.length === 0 && (
          <Empty title="No open orders">
            Every order the store has synced is completed or cancelled. New orders show here within seconds of
            the till syncing them.
          </Empty>
        )}
        {data && data.items.length > 0 && (
          <OrdersTable
            orders={data.items}
            timezone={props.timezone}
            currency={props.currency}
            now={props.now}
          />
        )}
        {data && (data.items.length > 0 || cursors.length > 0) && (
          <Pager
            hasPrevious={cursors.length > 0}
            hasNext={data.next_cursor !== null}
            onPrevious={() => setCursors(cursors.slice(0, -1))}
            onNext={() => data.next_cursor && setCursors([...cursors, data.next_cursor])}
            summary={`Open, in the kitchen and ready; newest first, ${ORDERS_PAGE} a page`}
          />
        )}
      </div>
    </Section>
  );
}
