/** A subscription's deliveries, newest first: filters (admin interface), pages, and one opened. */
import { useState } from 'preact/hooks';
import { query } from '../../api.ts';
import { Empty, ErrorNotice, Field, inputValue, Loading, Pager, Section } from '../../components/ui.tsx';
import { formatNumber } from '../../format.ts';
import { useLive, useResource } from '../../hooks.ts';
import { useSearch } from '../../router.ts';
import { api } from '../../session.ts';
import type { Iface } from './client.ts';
import { DeliveryDetail } from './delivery-detail.tsx';
import { type Delivery, DeliveryTable } from './delivery-table.tsx';

interface SubscriptionDelivery {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  response_code: number | null;
  response_time_ms: number | null;
  delivered_at: string | null;
  next_retry_at: string | null;
}

interface DeliveryPage {
  rows: Delivery[];
  /** Admin: page count; subscription: the next cursor. */
  pages?: number;
  total?: number;
  next?: string | null;
}

const PAGE_SIZE = 25;

const byIdOnly = (id: string): Delivery => ({
  id,
  event: '',
  event_id: '',
  status: '',
  response_code: null,
  latency_ms: null,
  delivered_at: null,
  next_retry: null,
});

/** A YYYY-MM-DD day from the filter as the start of that day, or the start of the next one. */
const dayStart = (day: string | null, plusDays = 0) => {
  if (!day) return undefined;
  const date = new Date(`${day}T00:00:00`);
  if (Number.isNaN(date.getTime())) return undefined;
  date.setDate(date.getDate() + plusDays);
  return date.toISOString();
};

async function loadAdmin(
  id: string,
  search: URLSearchParams,
  page: number,
  signal: AbortSignal,
): Promise<DeliveryPage> {
  const q = query({
    status: search.get('status'),
    event: search.get('event'),
    start_date: dayStart(search.get('from')),
    end_date: dayStart(search.get('to'), 1),
    page,
    limit: PAGE_SIZE,
  });
  const answer = await api.get<{ deliveries: Delivery[]; pagination: { total: number } }>(
    `/api/v1/webhooks/${encodeURIComponent(id)}/deliveries${q}`,
    signal,
  );
  const total = answer.pagination.total;
  return { rows: answer.deliveries, total, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)) };
}

async function loadSubscription(
  id: string,
  cursor: string | null,
  signal: AbortSignal,
): Promise<DeliveryPage> {
  const answer = await api.get<{
    data: SubscriptionDelivery[];
    meta?: { pagination?: { next_cursor?: string | null } };
  }>(`/v1/webhooks/${encodeURIComponent(id)}/deliveries${query({ limit: PAGE_SIZE, cursor })}`, signal);
  const rows = answer.data.map((d) => ({
    id: d.id,
    event: d.event_type,
    event_id: d.event_id,
    status: d.status,
    response_code: d.response_code,
    latency_ms: d.response_time_ms,
    delivered_at: d.delivered_at,
    next_retry: d.next_retry_at,
  }));
  return { rows, next: answer.meta?.pagination?.next_cursor ?? null };
}

export function Deliveries(props: { iface: Iface; webhookId: string; events: string[] }) {
  const [search, setSearch] = useSearch();
  const admin = props.iface === 'admin';
  const filterKey = ['status', 'event', 'from', 'to'].map((k) => search.get(k) ?? '').join('|');
  const [paging, setPaging] = useState<{ key: string; pages: Array<string | null> }>({
    key: filterKey,
    pages: [null],
  });
  const trail = paging.key === filterKey ? paging.pages : [null];
  const at = trail[trail.length - 1] ?? null;
  const page = trail.length;
  const list = useResource(
    (signal) =>
      admin
        ? loadAdmin(props.webhookId, search, page, signal)
        : loadSubscription(props.webhookId, at, signal),
    [props.webhookId, filterKey, page],
  );
  useLive(list.reload, ['webhook_delivery'], 10_000);
  const opened = search.get('delivery');
  // An admin delivery opens by its id alone (a link, or a row on another page); the subscription
  // interface has only the listed fields, so its row must be on this page.
  const openedRow =
    list.data?.rows.find((d) => d.id === opened) ?? (admin && opened ? byIdOnly(opened) : undefined);
  const hasNext = admin ? page < (list.data?.pages ?? 1) : Boolean(list.data?.next);
  const go = (pages: Array<string | null>) => setPaging({ key: filterKey, pages });
  return (
    <Section title="Deliveries" id="deliveries-heading">
      {admin ? (
        <DeliveryFilters events={props.events} />
      ) : (
        <p class="muted small">The subscription interface lists deliveries newest first, without filters.</p>
      )}
      {list.error !== undefined && (
        <ErrorNotice error={list.error} onRetry={list.reload} title="The deliveries did not load" />
      )}
      {!list.data && list.loading && <Loading label="Loading deliveries…" />}
      {list.data && list.data.rows.length === 0 && (
        <Empty
          title={filterKey.replace(/\|/g, '') ? 'No delivery matches these filters' : 'No deliveries yet'}
        >
          {filterKey.replace(/\|/g, '')
            ? 'Widen the filters or clear them to see more.'
            : 'Events the subscription listens to are delivered as they happen; send a test to see one now.'}
        </Empty>
      )}
      {list.data && list.data.rows.length > 0 && (
        <DeliveryTable
          rows={list.data.rows}
          opened={opened}
          onOpen={(id) => setSearch({ delivery: id === opened ? undefined : id })}
        />
      )}
      <Pager
        hasPrevious={page > 1}
        hasNext={hasNext}
        onPrevious={() => go(trail.slice(0, -1))}
        onNext={() => go([...trail, admin ? String(page + 1) : (list.data?.next ?? null)])}
        summary={
          list.data
            ? `Page ${page}${list.data.total !== undefined ? ` of ${list.data.pages} · ${formatNumber(list.data.total)} deliveries` : ''}`
            : undefined
        }
      />
      {openedRow && (
        <DeliveryDetail
          delivery={openedRow}
          admin={admin}
          onClose={() => setSearch({ delivery: undefined })}
          onRetried={list.reload}
        />
      )}
    </Section>
  );
}

function DeliveryFilters(props: { events: string[] }) {
  const [search, setSearch] = useSearch();
  return (
    <div class="toolbar">
      <Field label="Delivery status">
        <select
          data-testid="filter-delivery-status"
          value={search.get('status') ?? ''}
          onChange={(e) => setSearch({ status: inputValue(e), delivery: undefined })}
        >
          <option value="">Any</option>
          <option value="success">Success</option>
          <option value="failed">Failed</option>
          <option value="pending">Pending</option>
        </select>
      </Field>
      <Field label="Event">
        <input
          list="delivery-event-choices"
          data-testid="filter-delivery-event"
          value={search.get('event') ?? ''}
          placeholder="e.g. order.created"
          onChange={(e) => setSearch({ event: inputValue(e).trim(), delivery: undefined })}
        />
      </Field>
      <datalist id="delivery-event-choices">
        {props.events
          .filter((e) => !e.includes('*'))
          .map((e) => (
            <option key={e} value={e} />
          ))}
      </datalist>
      <Field label="From">
        <input
          type="date"
          value={search.get('from') ?? ''}
          onChange={(e) => setSearch({ from: inputValue(e), delivery: undefined })}
        />
      </Field>
      <Field label="To">
        <input
          type="date"
          value={search.get('to') ?? ''}
          onChange={(e) => setSearch({ to: inputValue(e), delivery: undefined })}
        />
      </Field>
    </div>
  );
}
