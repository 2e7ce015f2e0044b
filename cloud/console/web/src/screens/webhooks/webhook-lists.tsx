/** The subscriptions of each interface, a row each, with their actions and a link to their deliveries. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, query } from '../../api.ts';
import { Empty, ErrorNotice, Loading, Pager, Pill } from '../../components/ui.tsx';
import { formatDateTime, formatNumber, formatPercent } from '../../format.ts';
import { useLive, useResource } from '../../hooks.ts';
import { href } from '../../router.ts';
import { api } from '../../session.ts';
import { detailHref, type Iface, statusTone, type Webhook } from './client.ts';
import { WebhookActions } from './webhook-actions.tsx';

const PAGE_SIZE = 25;
const LIVE_FRAMES = ['webhook_delivery'];

interface SubscriptionPage {
  data: Webhook[];
  meta?: { pagination?: { next_cursor?: string | null } };
}

export function SubscriptionList(props: { onCreate: () => void; version: number }) {
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const list = useResource(
    (signal) => api.get<SubscriptionPage>(`/v1/webhooks${query({ limit: PAGE_SIZE, cursor })}`, signal),
    [cursor, props.version],
  );
  useLive(list.reload, LIVE_FRAMES, 30_000);
  const next = list.data?.meta?.pagination?.next_cursor ?? null;
  return (
    <ListFrame iface="subscription" list={list} rows={list.data?.data} onCreate={props.onCreate}>
      <Pager
        hasPrevious={cursors.length > 1}
        hasNext={Boolean(next)}
        onPrevious={() => setCursors(cursors.slice(0, -1))}
        onNext={() => next && setCursors([...cursors, next])}
        summary={list.data ? `Page ${cursors.length}` : undefined}
      />
    </ListFrame>
  );
}

export function AdminList(props: { onCreate: () => void; version: number }) {
  const [page, setPage] = useState(1);
  const list = useResource(
    (signal) =>
      api.get<{ webhooks: Webhook[]; total: number }>(
        `/api/v1/webhooks${query({ page, limit: PAGE_SIZE })}`,
        signal,
      ),
    [page, props.version],
  );
  useLive(list.reload, LIVE_FRAMES, 30_000);
  if (list.error instanceof ApiError && list.error.status === 403) return <NeedsPlatformAdmin />;
  const pages = Math.max(1, Math.ceil((list.data?.total ?? 0) / PAGE_SIZE));
  return (
    <ListFrame iface="admin" list={list} rows={list.data?.webhooks} onCreate={props.onCreate}>
      <Pager
        hasPrevious={page > 1}
        hasNext={page < pages}
        onPrevious={() => setPage(page - 1)}
        onNext={() => setPage(page + 1)}
        summary={
          list.data ? `Page ${page} of ${pages} · ${formatNumber(list.data.total)} webhooks` : undefined
        }
      />
    </ListFrame>
  );
}

function NeedsPlatformAdmin() {
  return (
    <div data-testid="needs-platform-admin">
      <Empty title="The admin interface needs the platform admin role">
        Only platform_admin, system_admin and super_admin users manage webhooks here (with delivery detail,
        retry and statistics). Your subscriptions on the Subscriptions tab are open to tenant admins too; ask
        a platform administrator for the role if you need this tab.
      </Empty>
    </div>
  );
}

function ListFrame(props: {
  iface: Iface;
  list: { data: unknown; error: unknown; loading: boolean; reload: () => void };
  rows: Webhook[] | undefined;
  onCreate: () => void;
  children: ComponentChildren;
}) {
  const { list, rows } = props;
  if (list.error instanceof ApiError && list.error.status === 403)
    return (
      <Empty title="Webhooks need an administrator role">
        Subscriptions are managed by tenant admins and platform administrators. Ask one of them for access.
      </Empty>
    );
  return (
    <>
      {list.error !== undefined && (
        <ErrorNotice error={list.error} onRetry={list.reload} title="The webhooks did not load" />
      )}
      {rows === undefined && list.loading && <Loading label="Loading webhooks…" />}
      {rows !== undefined && rows.length === 0 && (
        <Empty
          title="No subscriptions yet"
          action={
            <button type="button" class="btn primary" onClick={props.onCreate}>
              New subscription
            </button>
          }
        >
          Subscribe a receiver's URL to events (orders, payments, stock…) and the cloud sends each one to it,
          signed.
        </Empty>
      )}
      {rows !== undefined && rows.length > 0 && (
        <WebhookTable iface={props.iface} rows={rows} reload={list.reload} />
      )}
      {props.children}
    </>
  );
}

function WebhookTable(props: { iface: Iface; rows: Webhook[]; reload: () => void }) {
  return (
    <div class="table-wrap">
      <table class="table" data-testid="webhooks-table">
        <caption class="visually-hidden">Webhook subscriptions</caption>
        <thead>
          <tr>
            <th scope="col">Receiver</th>
            <th scope="col">Events</th>
            <th scope="col">Status</th>
            {props.iface === 'admin' && (
              <th scope="col" class="num">
                Last 24 h
              </th>
            )}
            <th scope="col">Created</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((webhook) => (
            <WebhookRow key={webhook.id} iface={props.iface} webhook={webhook} reload={props.reload} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function WebhookRow(props: { iface: Iface; webhook: Webhook; reload: () => void }) {
  const { webhook } = props;
  return (
    <tr data-testid="webhook-row" data-webhook-id={webhook.id} data-webhook-status={webhook.status}>
      <td class="webhook-url">
        <a href={href(detailHref(props.iface, webhook.id))}>{webhook.url}</a>
        {webhook.description && <div class="muted small">{webhook.description}</div>}
      </td>
      <td>
        <EventList events={webhook.events} />
      </td>
      <td>
        <Pill tone={statusTone(webhook.status)}>{webhook.status}</Pill>
        {webhook.disabled_reason && <div class="muted small">{webhook.disabled_reason}</div>}
      </td>
      {props.iface === 'admin' && (
        <td class="num">
          {formatNumber(webhook.stats?.deliveries_24h)}
          <div class="muted small">
            {webhook.stats?.deliveries_24h ? `${formatPercent(webhook.stats.success_rate)} ok` : ''}
          </div>
        </td>
      )}
      <td>{formatDateTime(webhook.created_at)}</td>
      <td>
        <WebhookActions
          iface={props.iface}
          webhook={webhook}
          onChanged={props.reload}
          onDeleted={props.reload}
        />
      </td>
    </tr>
  );
}

export function EventList(props: { events: string[] }) {
  const shown = props.events.slice(0, 4);
  const more = props.events.length - shown.length;
  return (
    <span class="event-list" title={props.events.join(', ')}>
      {shown.map((event) => (
        <code key={event}>{event}</code>
      ))}
      {more > 0 && <span class="muted small">+{more} more</span>}
    </span>
  );
}
