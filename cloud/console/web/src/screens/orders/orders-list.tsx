/** Orders across the stores: filters kept in the URL, cursor pages, each row opening its order. */
import { useState } from 'preact/hooks';
import { Empty, ErrorNotice, Field, inputValue, Loading, Page, Pager, Pill } from '../../components/ui.tsx';
import { formatDateTime, formatMoney } from '../../format.ts';
import { useResource } from '../../hooks.ts';
import { href, useSearch } from '../../router.ts';
import {
  type Location,
  listAllLocations,
  listOrders,
  ORDER_STATUSES,
  type Order,
  type OrderFilters,
  STATUS_LABELS,
} from './api.ts';
import { type PaymentState, usePaymentStates } from './payment-state.ts';
import { StatusPill } from './status.tsx';

const FILTER_LABELS: Record<Exclude<keyof OrderFilters, 'cursor'>, string> = {
  store: 'the store',
  day: 'the business day',
  status: 'the status',
  number: 'the number',
};

export function OrdersScreen() {
  const [search, setSearch] = useSearch();
  const filters: OrderFilters = {
    store: search.get('store') ?? undefined,
    day: search.get('day') ?? undefined,
    status: search.get('status') ?? undefined,
    number: search.get('number') ?? undefined,
    cursor: search.get('cursor') ?? undefined,
  };
  const [previous, setPrevious] = useState<Array<string | undefined>>([]);
  const locations = useResource((signal) => listAllLocations(signal), []);
  const orders = useResource(
    (signal) => listOrders(filters, signal),
    [filters.store, filters.day, filters.status, filters.number, filters.cursor],
  );
  const filter = (next: Record<string, string | undefined>) => {
    setPrevious([]);
    setSearch({ ...next, cursor: undefined });
  };
  const page = {
    hasPrevious: filters.cursor !== undefined,
    hasNext: Boolean(orders.data?.next_cursor),
    onPrevious: () => {
      setSearch({ cursor: previous[previous.length - 1] });
      setPrevious(previous.slice(0, -1));
    },
    onNext: () => {
      setPrevious([...previous, filters.cursor]);
      setSearch({ cursor: orders.data?.next_cursor ?? undefined });
    },
  };
  return (
    <Page
      title="Orders"
      subtitle="Every store's orders, newest first. Open one to void it or refund a payment."
    >
      <Filters filters={filters} locations={locations.data ?? []} onChange={filter} />
      {locations.error !== undefined && (
        <ErrorNotice
          error={locations.error}
          title="The stores could not be loaded"
          onRetry={locations.reload}
        />
      )}
      <OrdersBody
        orders={orders}
        filters={filters}
        locations={locations.data}
        onClear={() => filter({ store: undefined, day: undefined, status: undefined, number: undefined })}
      />
      <Pager
        {...page}
        summary={orders.data ? `${orders.data.items.length} orders on this page` : undefined}
      />
    </Page>
  );
}

function Filters(props: {
  filters: OrderFilters;
  locations: Location[];
  onChange: (next: Record<string, string | undefined>) => void;
}) {
  const { filters, onChange } = props;
  return (
    <form class="toolbar" aria-label="Filter orders" onSubmit={(event) => event.preventDefault()}>
      <Field label="Store">
        <select
          data-testid="filter-store"
          value={filters.store ?? ''}
          onChange={(e) => onChange({ store: inputValue(e) })}
        >
          <option value="">All stores</option>
          {props.locations.map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Business day">
        <input
          type="date"
          data-testid="filter-day"
          value={filters.day ?? ''}
          onChange={(e) => onChange({ day: inputValue(e) })}
        />
      </Field>
      <Field label="Status">
        <select
          data-testid="filter-status"
          value={filters.status ?? ''}
          onChange={(e) => onChange({ status: inputValue(e) })}
        >
          <option value="">Any status</option>
          {ORDER_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Order number">
        <input
          type="search"
          data-testid="filter-number"
          key={filters.number ?? ''}
          defaultValue={filters.number ?? ''}
          maxLength={32}
          placeholder="e.g. 1042"
          onChange={(e) => onChange({ number: inputValue(e).trim() })}
        />
      </Field>
    </form>
  );
}

function OrdersBody(props: {
  orders: ReturnType<typeof useResource<{ items: Order[]; next_cursor: string | null }>>;
  filters: OrderFilters;
  locations: Location[] | undefined;
  onClear: () => void;
}) {
  const { orders } = props;
  const payments = usePaymentStates(orders.data?.items);
  if (orders.error !== undefined)
    return (
      <ErrorNotice error={orders.error} title="The orders could not be loaded" onRetry={orders.reload} />
    );
  if (!orders.data) return <Loading label="Loading orders…" />;
  if (orders.data.items.length === 0) return <NoOrders filters={props.filters} onClear={props.onClear} />;
  const byId = new Map((props.locations ?? []).map((l) => [l.id, l]));
  return (
    <div class="table-wrap card" aria-busy={orders.loading}>
      <table class="table" data-testid="orders-table">
        <caption class="visually-hidden">Orders, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Number</th>
            <th scope="col">Store</th>
            <th scope="col">Placed at</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Total
            </th>
            <th scope="col">Payment</th>
          </tr>
        </thead>
        <tbody>
          {orders.data.items.map((order) => (
            <OrderRow
              key={order.id}
              order={order}
              store={byId.get(order.location_id)}
              payment={payments.get(order.id)}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function OrderRow(props: {
  order: Order;
  store: Location | undefined;
  payment: PaymentState | 'error' | undefined;
}) {
  const { order, store, payment } = props;
  return (
    <tr data-testid="order-row" data-order-id={order.id} data-order-number={order.number}>
      <td>
        <a href={href(`/orders/${order.id}`)}>#{order.number}</a>
      </td>
      <td>{store?.name ?? <span class="muted">Unknown store</span>}</td>
      <td>{store ? formatDateTime(order.created_at, store.timezone) : <span class="muted">…</span>}</td>
      <td>
        <StatusPill status={order.status} />
      </td>
      <td class="num">{formatMoney(order.total)}</td>
      <td>
        {payment === undefined ? (
          <span class="muted small">Checking…</span>
        ) : payment === 'error' ? (
          <span class="muted small">Could not be read</span>
        ) : (
          <Pill tone={payment.tone}>{payment.label}</Pill>
        )}
      </td>
    </tr>
  );
}

function NoOrders(props: { filters: OrderFilters; onClear: () => void }) {
  const used = (Object.keys(FILTER_LABELS) as Array<keyof typeof FILTER_LABELS>).filter(
    (k) => props.filters[k],
  );
  if (used.length === 0)
    return (
      <Empty title="No orders yet">
        Orders appear here as soon as a store's appliance syncs them, normally within a few seconds of the
        sale.
      </Empty>
    );
  const names = used.map((k) => FILTER_LABELS[k]);
  const list =
    names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
  return (
    <Empty
      title="No orders match these filters"
      action={
        <button type="button" class="btn small" onClick={props.onClear}>
          Clear all filters
        </button>
      }
    >
      Try loosening {list}: for example pick another business day or “Any status”.
    </Empty>
  );
}
