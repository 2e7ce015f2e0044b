/**
 * One delivery opened: the request the cloud sent and the endpoint's response (the admin
 * interface's delivery detail), or the fields the subscription interface lists; Retry for a failed
 * admin delivery, following the new delivery until it settles.
 */
import { useState } from 'preact/hooks';
import { Empty, ErrorNotice, Loading, Pill, ProgressBar, Section } from '../../components/ui.tsx';
import { formatDateTime, formatNumber } from '../../format.ts';
import { useInterval, useResource } from '../../hooks.ts';
import { api } from '../../session.ts';
import { statusTone } from './client.ts';
import type { Delivery } from './delivery-table.tsx';

interface DeliveryRecord {
  id: string;
  event: string;
  status: string;
  request: { url: string; method: string; headers: Record<string, string>; body: string };
  response: { status_code: number | null; headers: Record<string, string>; body: string } | null;
  timing: { sent_at: string | null; response_at: string | null; latency_ms: number | null };
  attempt: number;
  max_attempts: number;
  error: string | null;
  next_retry: string | null;
}

interface Retried {
  delivery_id: string;
  status: string;
  scheduled_at: string;
}

const loadDelivery = (id: string, signal?: AbortSignal) =>
  api.get<DeliveryRecord>(`/api/v1/webhooks/deliveries/${encodeURIComponent(id)}`, signal);

export function DeliveryDetail(props: {
  delivery: Delivery;
  admin: boolean;
  onClose: () => void;
  onRetried: () => void;
}) {
  return (
    <Section
      title={`Delivery ${props.delivery.id}`}
      id="delivery-detail-heading"
      actions={
        <button type="button" class="btn small" onClick={props.onClose} aria-label="Close the delivery">
          Close
        </button>
      }
    >
      <div data-testid="delivery-detail" data-delivery-id={props.delivery.id}>
        {props.admin ? (
          <AdminDelivery id={props.delivery.id} onRetried={props.onRetried} />
        ) : (
          <ListedFields delivery={props.delivery} />
        )}
      </div>
    </Section>
  );
}

function ListedFields(props: { delivery: Delivery }) {
  const d = props.delivery;
  return (
    <>
      <dl class="facts">
        <dt>Event</dt>
        <dd>
          <code>{d.event}</code> ({d.event_id})
        </dd>
        <dt>Status</dt>
        <dd>
          <Pill tone={statusTone(d.status)}>{d.status}</Pill>
        </dd>
        <dt>Response</dt>
        <dd>{d.response_code === null ? 'No HTTP answer yet' : `HTTP ${d.response_code}`}</dd>
        <dt>Latency</dt>
        <dd>{d.latency_ms === null ? '—' : `${formatNumber(d.latency_ms)} ms`}</dd>
        <dt>Delivered</dt>
        <dd>{formatDateTime(d.delivered_at)}</dd>
        <dt>Next retry</dt>
        <dd>{d.next_retry ? formatDateTime(d.next_retry) : 'None scheduled'}</dd>
      </dl>
      <p class="muted small">
        The subscription interface lists these fields only: the request and response bodies and Retry are
        offered for webhooks made on the admin interface.
      </p>
    </>
  );
}

function AdminDelivery(props: { id: string; onRetried: () => void }) {
  const { data, error, loading, reload } = useResource(
    (signal) => loadDelivery(props.id, signal),
    [props.id],
  );
  if (error !== undefined)
    return <ErrorNotice error={error} onRetry={reload} title="The delivery did not load" />;
  if (!data) return loading ? <Loading label="Loading the delivery…" /> : null;
  return (
    <>
      <dl class="facts">
        <dt>Event</dt>
        <dd>
          <code>{data.event}</code>
        </dd>
        <dt>Status</dt>
        <dd>
          <Pill tone={statusTone(data.status)}>{data.status}</Pill> attempt {data.attempt} of{' '}
          {data.max_attempts}
        </dd>
        <dt>Sent</dt>
        <dd>
          {formatDateTime(data.timing.sent_at)}
          {data.timing.latency_ms !== null && `, answered in ${formatNumber(data.timing.latency_ms)} ms`}
        </dd>
        {data.error && (
          <>
            <dt>Error</dt>
            <dd class="error-text">{data.error}</dd>
          </>
        )}
        {data.next_retry && (
          <>
            <dt>Next retry</dt>
            <dd>{formatDateTime(data.next_retry)}</dd>
          </>
        )}
      </dl>
      {data.status === 'failed' && <RetryDelivery id={data.id} onRetried={props.onRetried} />}
      <div class="grid-2 exchange">
        <div>
          <h3>Request</h3>
          <p class="small">
            <code>
              {data.request.method} {data.request.url}
            </code>
          </p>
          <Headers headers={data.request.headers} />
          <pre data-testid="delivery-request">{pretty(data.request.body)}</pre>
        </div>
        <div>
          <h3>Response</h3>
          {data.response ? (
            <>
              <p class="small">HTTP {data.response.status_code ?? '—'}</p>
              <Headers headers={data.response.headers} />
              <pre data-testid="delivery-response">{pretty(data.response.body) || '(empty body)'}</pre>
            </>
          ) : (
            <Empty title="No response">
              The request has not been answered: it is waiting, or the connection failed.
            </Empty>
          )}
        </div>
      </div>
    </>
  );
}

function Headers(props: { headers: Record<string, string> }) {
  const entries = Object.entries(props.headers ?? {});
  if (entries.length === 0) return null;
  return (
    <details>
      <summary class="small">Headers ({entries.length})</summary>
      <pre>{entries.map(([name, value]) => `${name}: ${value}`).join('\n')}</pre>
    </details>
  );
}

function pretty(body: string) {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function RetryDelivery(props: { id: string; onRetried: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [retried, setRetried] = useState<Retried | null>(null);
  const retry = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setRetried(
        await api.post<Retried>(`/api/v1/webhooks/deliveries/${encodeURIComponent(props.id)}/retry`, {}),
      );
      props.onRetried();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="retry-box">
      {!retried && (
        <button
          type="button"
          class="btn primary"
          data-testid="retry-delivery"
          disabled={busy}
          onClick={() => void retry()}
        >
          {busy ? 'Retrying…' : 'Retry'}
        </button>
      )}
      {error !== undefined && <ErrorNotice error={error} title="The retry was not queued" />}
      {retried && <RetryProgress retried={retried} onSettled={props.onRetried} />}
    </div>
  );
}

/** The new delivery's status, asked every two seconds until it is no longer pending. */
function RetryProgress(props: { retried: Retried; onSettled: () => void }) {
  const [status, setStatus] = useState(props.retried.status);
  const [code, setCode] = useState<number | null>(null);
  useInterval(() => {
    if (status !== 'pending') return;
    void loadDelivery(props.retried.delivery_id).then(
      (record) => {
        setCode(record.response?.status_code ?? null);
        setStatus(record.status);
        if (record.status !== 'pending') props.onSettled();
      },
      () => undefined,
    );
  }, 2_000);
  return (
    <div
      class="notice info"
      role="status"
      data-testid="retry-result"
      data-delivery-id={props.retried.delivery_id}
      data-delivery-status={status}
    >
      <span>
        Sent again as delivery <code>{props.retried.delivery_id}</code>:{' '}
        <Pill tone={statusTone(status)}>{status}</Pill>
        {code !== null && ` HTTP ${code}`}
      </span>
      {status === 'pending' && <ProgressBar label="Waiting for the new delivery" value={null} />}
    </div>
  );
}
