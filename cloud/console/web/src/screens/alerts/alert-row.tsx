/** One alert in the list: severity, what, where, when (in the store's zone), state and actions. */
import { describeError } from '../../api.ts';
import { Pill } from '../../components/ui.tsx';
import { formatAgo, formatDateTime } from '../../format.ts';
import { useNow } from '../../hooks.ts';
import type { StoreRef } from './locations.ts';
import { ALERT_STATUS_TONE, type Alert, alertSeverity, capitalize } from './types.ts';

export function AlertRow(props: {
  alert: Alert;
  store: StoreRef | undefined;
  /** The signed-in user's id, shown as "you". */
  me: string | undefined;
  error: unknown;
  onAction: (action: 'acknowledge' | 'resolve') => void;
}) {
  const { alert, store } = props;
  const severity = alertSeverity(alert.severity);
  const now = useNow(30_000);
  const locationId = alert.labels?.location_id;
  return (
    <tr data-testid="alert-row" data-alert-id={alert.id} data-alert-status={alert.status}>
      <td>
        <Pill tone={severity.tone}>{severity.label}</Pill>
      </td>
      <td>
        <strong>{alert.title}</strong>
        <div class="muted small">
          {alert.service} · {alert.source}
          {alert.occurrences > 1 &&
            ` · ${alert.occurrences} times, last ${formatAgo(alert.last_seen_at, now)}`}
          {alert.suppressed && ' · suppressed by a maintenance window'}
        </div>
        {alert.description && <div class="small alert-description">{alert.description}</div>}
        {alert.runbook_url && (
          <a class="small" href={alert.runbook_url} target="_blank" rel="noreferrer">
            Runbook
          </a>
        )}
      </td>
      <td>
        {store ? (
          store.name
        ) : locationId ? (
          <code class="small">{locationId}</code>
        ) : (
          <span class="muted">—</span>
        )}
      </td>
      <td>
        <time dateTime={alert.started_at}>{formatDateTime(alert.started_at, store?.timezone)}</time>
        <div class="muted small">{formatAgo(alert.started_at, now)}</div>
      </td>
      <td>
        <span data-testid="alert-status">
          <Pill tone={ALERT_STATUS_TONE[alert.status] ?? 'neutral'}>{capitalize(alert.status)}</Pill>
        </span>
        {alert.acknowledged_by && alert.status === 'acknowledged' && (
          <div class="muted small">
            by {alert.acknowledged_by === props.me ? 'you' : alert.acknowledged_by}
          </div>
        )}
      </td>
      <td class="num">{alert.escalation_level}</td>
      <td>
        <RowActions {...props} />
      </td>
    </tr>
  );
}

function RowActions(props: {
  alert: Alert;
  error: unknown;
  onAction: (action: 'acknowledge' | 'resolve') => void;
}) {
  const { alert } = props;
  return (
    <div class="row-actions">
      {alert.status === 'firing' && (
        <button
          type="button"
          class="btn small primary"
          data-testid="acknowledge"
          aria-label={`Acknowledge ${alert.title}`}
          onClick={() => props.onAction('acknowledge')}
        >
          Acknowledge
        </button>
      )}
      {alert.status !== 'resolved' && (
        <button
          type="button"
          class="btn small"
          data-testid="resolve"
          aria-label={`Resolve ${alert.title}`}
          onClick={() => props.onAction('resolve')}
        >
          Resolve
        </button>
      )}
      {props.error !== undefined && (
        <span class="error-text small" role="alert">
          {describeError(props.error).message}
        </span>
      )}
    </div>
  );
}
