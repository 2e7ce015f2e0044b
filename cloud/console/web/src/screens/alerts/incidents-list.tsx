/** The incidents tab: every incident, filtered by state, severity and service, each linking to its page. */
import { query } from '../../api.ts';
import { Empty, ErrorNotice, Field, inputValue, Loading, Pager, Pill } from '../../components/ui.tsx';
import { formatAgo, formatDateTime } from '../../format.ts';
import { nextCursorOf, useCursorPages, useLive, useNow, useResource } from '../../hooks.ts';
import { href, useSearch } from '../../router.ts';
import { api } from '../../session.ts';
import { type StoreRef, useStores } from './locations.ts';
import {
  capitalize,
  INCIDENT_SEVERITY_TONE,
  INCIDENT_STATUS_TONE,
  type Incident,
  type Paged,
} from './types.ts';

const PAGE_SIZE = 50;
const LIVE_FRAMES = ['incident', 'alert', 'alert.notification'];

function Filters() {
  const [search, setSearch] = useSearch();
  return (
    <div class="toolbar">
      <Field label="Incident status">
        <select
          data-testid="filter-incident-status"
          value={search.get('incident_status') ?? ''}
          onChange={(event) => setSearch({ incident_status: inputValue(event) })}
        >
          <option value="">Any</option>
          <option value="open">Open</option>
          <option value="acknowledged">Acknowledged</option>
          <option value="resolved">Resolved</option>
        </select>
      </Field>
      <Field label="Severity">
        <select
          value={search.get('severity') ?? ''}
          onChange={(event) => setSearch({ severity: inputValue(event) })}
        >
          <option value="">Any</option>
          <option value="critical">Critical</option>
          <option value="high">High</option>
          <option value="medium">Medium</option>
          <option value="low">Low</option>
        </select>
      </Field>
      <Field label="Service">
        <input
          type="search"
          value={search.get('service') ?? ''}
          placeholder="e.g. devices"
          onChange={(event) => setSearch({ service: inputValue(event).trim() })}
        />
      </Field>
    </div>
  );
}

export function IncidentsList() {
  const [search, setSearch] = useSearch();
  const filter = {
    status: search.get('incident_status') ?? undefined,
    severity: search.get('severity') ?? undefined,
    service: search.get('service') ?? undefined,
  };
  const filterKey = JSON.stringify(filter);
  const pages = useCursorPages(filterKey);
  const stores = useStores();
  const { data, error, loading, reload } = useResource(
    (signal) =>
      api.get<Paged<Incident>>(
        `/api/v1/incidents${query({ ...filter, limit: PAGE_SIZE, cursor: pages.cursor })}`,
        signal,
      ),
    [filterKey, pages.cursor],
  );
  useLive(reload, LIVE_FRAMES, 10_000);
  const next = data ? nextCursorOf(data) : null;
  const filtered = Boolean(filter.status || filter.severity || filter.service);
  return (
    <>
      <Filters />
      {error !== undefined && (
        <ErrorNotice error={error} onRetry={reload} title="The incidents did not load" />
      )}
      {data === undefined && loading && <Loading label="Loading incidents…" />}
      {data !== undefined && data.data.length === 0 && (
        <Empty
          title={filtered ? 'No incident matches these filters' : 'No incidents yet'}
          action={
            filtered ? (
              <button
                type="button"
                class="btn small"
                onClick={() =>
                  setSearch({ incident_status: undefined, severity: undefined, service: undefined })
                }
              >
                Clear the filters
              </button>
            ) : undefined
          }
        >
          {filtered
            ? 'Widen the filters to see more.'
            : 'An incident opens when an alert fires or a store reports a device alert; it appears here with its timeline and chat channel.'}
        </Empty>
      )}
      {data !== undefined && data.data.length > 0 && <IncidentTable incidents={data.data} stores={stores} />}
      <Pager
        hasPrevious={pages.hasPrevious}
        hasNext={Boolean(next)}
        onPrevious={pages.previous}
        onNext={() => next && pages.next(next)}
        summary={data ? `Page ${pages.page}` : undefined}
      />
    </>
  );
}

function IncidentTable(props: { incidents: Incident[]; stores: Map<string, StoreRef> }) {
  const now = useNow(30_000);
  return (
    <div class="table-wrap">
      <table class="table" data-testid="incidents-table">
        <caption class="visually-hidden">Incidents, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Severity</th>
            <th scope="col">Incident</th>
            <th scope="col">Store</th>
            <th scope="col">Started</th>
            <th scope="col">Status</th>
            <th scope="col">Last activity</th>
          </tr>
        </thead>
        <tbody>
          {props.incidents.map((incident) => {
            const store = props.stores.get(incident.location_id ?? '');
            return (
              <tr key={incident.id} data-testid="incident-row" data-incident-id={incident.id}>
                <td>
                  <Pill tone={INCIDENT_SEVERITY_TONE[incident.severity] ?? 'neutral'}>
                    {capitalize(incident.severity)}
                  </Pill>
                </td>
                <td>
                  <a href={href(`/incidents/${incident.id}`)}>{incident.title}</a>
                  <div class="muted small">
                    {[
                      incident.service,
                      incident.occurrences > 1 ? `${incident.occurrences} occurrences` : null,
                    ]
                      .filter(Boolean)
                      .join(' · ')}
                  </div>
                </td>
                <td>
                  {store?.name ?? <span class="muted">{incident.location_id ? 'Unknown store' : '—'}</span>}
                </td>
                <td>{formatDateTime(incident.started_at, store?.timezone)}</td>
                <td>
                  <Pill tone={INCIDENT_STATUS_TONE[incident.status] ?? 'neutral'}>
                    {capitalize(incident.status)}
                  </Pill>
                </td>
                <td>{formatAgo(incident.last_activity_at, now)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
