/** The deliveries of one page as a table: event, outcome, timing, and a button to open each. */
import { Pill } from '../../components/ui.tsx';
import { formatDateTime, formatNumber } from '../../format.ts';
import { statusTone } from './client.ts';

/** One delivery as both interfaces list it, in the admin interface's names. */
export interface Delivery {
  id: string;
  event: string;
  event_id: string;
  status: string;
  response_code: number | null;
  latency_ms: number | null;
  delivered_at: string | null;
  next_retry: string | null;
  created_at?: string;
  attempt?: number;
  error?: string | null;
  original_delivery_id?: string | null;
}

export function DeliveryTable(props: {
  rows: Delivery[];
  opened: string | null;
  onOpen: (id: string) => void;
}) {
  return (
    <div class="table-wrap">
      <table class="table" data-testid="deliveries-table">
        <caption class="visually-hidden">Deliveries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              HTTP
            </th>
            <th scope="col" class="num">
              Latency
            </th>
            <th scope="col">When</th>
            <th scope="col">
              <span class="visually-hidden">Open</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((d) => (
            <tr
              key={d.id}
              data-testid="delivery-row"
              data-delivery-id={d.id}
              data-delivery-status={d.status}
              class={d.id === props.opened ? 'selected' : undefined}
            >
              <td>
                <code>{d.event}</code>
                {d.original_delivery_id && <div class="muted small">retry of {d.original_delivery_id}</div>}
                {d.error && <div class="error-text small">{d.error}</div>}
              </td>
              <td>
                <Pill tone={statusTone(d.status)}>{d.status}</Pill>
                {d.attempt !== undefined && d.attempt > 1 && (
                  <span class="muted small"> attempt {d.attempt}</span>
                )}
              </td>
              <td class="num">{d.response_code ?? '—'}</td>
              <td class="num">{d.latency_ms === null ? '—' : `${formatNumber(d.latency_ms)} ms`}</td>
              <td>
                {formatDateTime(d.delivered_at ?? d.created_at)}
                {d.next_retry && <div class="muted small">next try {formatDateTime(d.next_retry)}</div>}
              </td>
              <td>
                <button
                  type="button"
                  class="btn small"
                  aria-expanded={d.id === props.opened}
                  aria-label={`${d.id === props.opened ? 'Hide' : 'Open'} delivery ${d.event} ${d.id}`}
                  data-testid="open-delivery"
                  onClick={() => props.onOpen(d.id)}
                >
                  {d.id === props.opened ? 'Hide' : 'Open'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
