/** The alerts tab: the firing list with its status filter, pages and acknowledge / resolve. */
import { useMemo, useState } from 'preact/hooks';
import { query } from '../../api.ts';
import { Empty, ErrorNotice, Field, inputValue, Loading, Pager } from '../../components/ui.tsx';
import { useCursorPages, useLive, useResource } from '../../hooks.ts';
import { useSearch } from '../../router.ts';
import { api, useUser } from '../../session.ts';
import { AlertRow } from './alert-row.tsx';
import { useStores } from './locations.ts';
import type { Alert, AlertPage } from './types.ts';

const STATUSES = [
  { id: 'active', label: 'Firing' },
  { id: 'acknowledged', label: 'Acknowledged' },
  { id: 'resolved', label: 'Resolved' },
  { id: 'all', label: 'All' },
];
const PAGE_SIZE = 50;
const LIVE_FRAMES = ['alert', 'alert.notification', 'incident'];

type Action = 'acknowledge' | 'resolve';

/**
 * Rows the user acted on stay in the list with their new state until the filter or page changes,
 * so an acknowledged alert does not vanish from under the pointer of a "Firing" list.
 */
function useTouched(key: string) {
  const [state, setState] = useState<{ key: string; rows: Map<string, Alert> }>({ key, rows: new Map() });
  const rows = state.key === key ? state.rows : new Map<string, Alert>();
  const put = (alert: Alert) => setState({ key, rows: new Map(rows).set(alert.id, alert) });
  return { rows, put };
}

function merge(server: Alert[], touched: Map<string, Alert>): Alert[] {
  const shown = server.map((alert) => touched.get(alert.id) ?? alert);
  const missing = [...touched.values()].filter((alert) => !server.some((s) => s.id === alert.id));
  return [...shown, ...missing].sort((a, b) => b.started_at.localeCompare(a.started_at));
}

export function AlertsList() {
  const [search, setSearch] = useSearch();
  const status = search.get('status') ?? 'active';
  const pages = useCursorPages(status);
  const key = `${status}|${pages.cursor}`;
  const touched = useTouched(key);
  const [errors, setErrors] = useState<Record<string, unknown>>({});
  const stores = useStores();
  const user = useUser();
  const { data, error, loading, reload } = useResource(
    (signal) =>
      api.data<AlertPage>(
        `/api/v1/alerts${query({ status, limit: PAGE_SIZE, cursor: pages.cursor })}`,
        signal,
      ),
    [key],
  );
  useLive(reload, LIVE_FRAMES, 10_000);
  const rows = useMemo(() => merge(data?.alerts ?? [], touched.rows), [data, touched.rows]);

  const act = async (alert: Alert, action: Action) => {
    const next = action === 'acknowledge' ? 'acknowledged' : 'resolved';
    touched.put({ ...alert, status: next });
    setErrors(({ [alert.id]: _, ...rest }) => rest);
    try {
      const body = action === 'acknowledge' ? { user_id: user?.id ?? 'console' } : {};
      const answer = await api.post<{ data: Alert }>(`/api/v1/alerts/${alert.id}/${action}`, body);
      touched.put(answer.data);
    } catch (caught) {
      touched.put(alert);
      setErrors((all) => ({ ...all, [alert.id]: caught }));
    }
    reload();
  };

  return (
    <>
      <div class="toolbar">
        <Field label="Status">
          <select
            data-testid="filter-alert-status"
            value={status}
            onChange={(event) =>
              setSearch({ status: inputValue(event) === 'active' ? undefined : inputValue(event) })
            }
          >
            {STATUSES.map((s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ))}
          </select>
        </Field>
        <button type="button" class="btn small" onClick={reload} disabled={loading}>
          {loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      {error !== undefined && <ErrorNotice error={error} onRetry={reload} title="The alerts did not load" />}
      {data === undefined && loading && <Loading label="Loading alerts…" />}
      {data !== undefined && rows.length === 0 && (
        <NoAlerts status={status} onAll={() => setSearch({ status: 'all' })} />
      )}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table class="table" data-testid="alerts-table">
            <caption class="visually-hidden">Alerts, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Severity</th>
                <th scope="col">Alert</th>
                <th scope="col">Store</th>
                <th scope="col">Fired</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Level
                </th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((alert) => (
                <AlertRow
                  key={alert.id}
                  alert={alert}
                  store={stores.get(alert.labels?.location_id ?? '')}
                  me={user?.id}
                  error={errors[alert.id]}
                  onAction={(action) => void act(alert, action)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        hasPrevious={pages.hasPrevious}
        hasNext={Boolean(data?.next_cursor)}
        onPrevious={pages.previous}
        onNext={() => data?.next_cursor && pages.next(data.next_cursor)}
        summary={
          data ? `Page ${pages.page} · ${rows.length} alert${rows.length === 1 ? '' : 's'}` : undefined
        }
      />
    </>
  );
}

function NoAlerts(props: { status: string; onAll: () => void }) {
  if (props.status === 'active')
    return (
      <Empty
        title="No alert is firing"
        action={
          <button type="button" class="btn small" onClick={props.onAll}>
            Show every alert
          </button>
        }
      >
        Every store and service is quiet. New alerts appear here as they fire; look at all states to see what
        was acknowledged or resolved.
      </Empty>
    );
  return (
    <Empty title={`No ${props.status === 'all' ? '' : `${props.status} `}alerts`}>
      Choose another status above. Alerts arrive from the stores' edge metrics and from monitoring sources
      through the alert ingest API.
    </Empty>
  );
}
