/** The Stores screen: every location of the tenant with its live status, filtered by what the URL keeps. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Empty, ErrorNotice, Field, inputValue, Loading, Page, Pager, Stat } from '../../components/ui.tsx';
import { formatNumber } from '../../format.ts';
import { useLive, useNow, useResource } from '../../hooks.ts';
import { href, useSearch } from '../../router.ts';
import { loadNames, loadStores, type Names, STORES_PAGE, type StoreFilters } from './data.ts';
import { StoresTable, shortDuration } from './stores-table.tsx';
import type { FleetStore } from './types.ts';

const SEARCH_DELAY_MS = 300;

const SORTS = {
  name: { label: 'Name', compare: (a: FleetStore, b: FleetStore) => a.name.localeCompare(b.name) },
  offline: {
    label: 'Offline first',
    compare: (a: FleetStore, b: FleetStore) =>
      Number(a.online) - Number(b.online) || a.name.localeCompare(b.name),
  },
  queue: {
    label: 'Largest queue',
    compare: (a: FleetStore, b: FleetStore) => (b.queue_depth ?? -1) - (a.queue_depth ?? -1),
  },
  conflicts: {
    label: 'Conflict rate',
    compare: (a: FleetStore, b: FleetStore) => b.conflict_rate - a.conflict_rate,
  },
  devices: {
    label: 'Devices offline',
    compare: (a: FleetStore, b: FleetStore) => b.devices_offline - a.devices_offline,
  },
} as const;
type Sort = keyof typeof SORTS;
const sortOf = (value: string | null): Sort => (value && value in SORTS ? (value as Sort) : 'name');

function filtersOf(params: URLSearchParams): StoreFilters {
  const get = (key: string) => params.get(key) || undefined;
  return {
    brand_id: get('brand_id'),
    region_id: get('region_id'),
    status: get('status'),
    q: get('q'),
    cursor: get('cursor'),
  };
}

/** The name search updates the URL once typing pauses, so each keystroke is not a request. */
function SearchField(props: { value: string; onChange: (value: string) => void }) {
  const [text, setText] = useState(props.value);
  useEffect(() => setText(props.value), [props.value]);
  useEffect(() => {
    if (text === props.value) return;
    const timer = setTimeout(() => props.onChange(text.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <Field label="Search by name">
      <input
        type="search"
        value={text}
        placeholder="Store name"
        data-testid="filter-q"
        onInput={(event) => setText(inputValue(event))}
      />
    </Field>
  );
}

function Filters(props: {
  filters: StoreFilters;
  sort: Sort;
  names: Names | undefined;
  set: (next: Record<string, string | undefined>) => void;
}) {
  const { filters, names, set } = props;
  // A new filter starts from the first page.
  const choose = (key: string) => (event: Event) => set({ [key]: inputValue(event), cursor: undefined });
  const active = Boolean(filters.brand_id || filters.region_id || filters.status || filters.q);
  return (
    <search class="toolbar stores-filters" aria-label="Filter the stores">
      <Field label="Brand">
        <select value={filters.brand_id ?? ''} onChange={choose('brand_id')} data-testid="filter-brand">
          <option value="">All brands</option>
          {names?.brands.map((b) => (
            <option key={b.id} value={b.id}>
              {b.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Region">
        <select value={filters.region_id ?? ''} onChange={choose('region_id')} data-testid="filter-region">
          <option value="">All regions</option>
          {names?.regions.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Status">
        <select value={filters.status ?? ''} onChange={choose('status')} data-testid="filter-status">
          <option value="">Online and offline</option>
          <option value="online">Online</option>
          <option value="offline">Offline</option>
        </select>
      </Field>
      <SearchField value={filters.q ?? ''} onChange={(q) => set({ q, cursor: undefined })} />
      <Field label="Sort by">
        <select
          value={props.sort}
          onChange={(event) => set({ sort: inputValue(event) })}
          data-testid="stores-sort"
        >
          {Object.entries(SORTS).map(([key, sort]) => (
            <option key={key} value={key}>
              {sort.label}
            </option>
          ))}
        </select>
      </Field>
      {active && (
        <button
          type="button"
          class="btn"
          onClick={() =>
            set({
              brand_id: undefined,
              region_id: undefined,
              status: undefined,
              q: undefined,
              cursor: undefined,
            })
          }
        >
          Clear filters
        </button>
      )}
    </search>
  );
}

function Summary(props: { stores: FleetStore[]; more: boolean }) {
  const { stores, more } = props;
  const online = stores.filter((s) => s.online).length;
  const queued = stores.reduce((sum, s) => sum + (s.queue_depth ?? 0), 0);
  const oldest = stores.reduce(
    (max, s) => ((s.queue_depth ?? 0) > 0 ? Math.max(max, s.lag_seconds ?? 0) : max),
    0,
  );
  const expiring = stores.reduce((sum, s) => sum + s.certificates_expiring_30d, 0);
  const plus = more ? '+' : '';
  return (
    <div class="stats" data-testid="stores-summary">
      <Stat label={more ? 'Stores on this page' : 'Stores'} value={`${formatNumber(stores.length)}${plus}`} />
      <Stat label="Online" value={formatNumber(online)} tone={online > 0 ? 'ok' : undefined} />
      <Stat
        label="Offline"
        value={formatNumber(stores.length - online)}
        tone={stores.length - online > 0 ? 'bad' : undefined}
      />
      <Stat
        label="Queue backlog · oldest"
        value={queued === 0 ? '0' : `${formatNumber(queued)} · ${shortDuration(oldest)}`}
        tone={queued > 0 ? 'warn' : undefined}
      />
      <Stat
        label="Certs expiring ≤ 30 d"
        value={formatNumber(expiring)}
        tone={expiring > 0 ? 'warn' : undefined}
      />
    </div>
  );
}

function NoStores(props: { filtered: boolean; onClear: () => void }) {
  if (props.filtered)
    return (
      <Empty
        title="No store matches these filters"
        action={
          <button type="button" class="btn" onClick={props.onClear}>
            Clear filters
          </button>
        }
      >
        Change the brand, region, status or name above, or clear the filters to see every store.
      </Empty>
    );
  return (
    <Empty title="No stores yet" action={<a href={href('/devices')}>Go to Devices to enrol an appliance</a>}>
      Create a location with <code>POST /v1/platform/locations</code> (its name, brand, region and time zone),
      then register and enrol its appliance on the Devices screen. The store shows here as soon as it exists
      and goes online when its appliance first syncs.
    </Empty>
  );
}

export function StoresScreen() {
  const [params, set] = useSearch();
  const filters = filtersOf(params);
  const key = JSON.stringify(filters);
  const list = useResource((signal) => loadStores(filters, signal), [key]);
  const names = useResource(() => loadNames(), []);
  useLive(list.reload, ['store', 'alert'], 10_000);
  const now = useNow(15_000);
  // The cursors of the pages before this one, to step back through them.
  const [previous, setPrevious] = useState<string[]>([]);
  const filterKey = JSON.stringify({ ...filters, cursor: undefined });
  useEffect(() => setPrevious([]), [filterKey]);
  const filtered = Boolean(filters.brand_id || filters.region_id || filters.status || filters.q);
  const clear = () =>
    set({ brand_id: undefined, region_id: undefined, status: undefined, q: undefined, cursor: undefined });
  const sort = sortOf(params.get('sort'));
  const loaded = list.data?.stores;
  const stores = useMemo(() => loaded && [...loaded].sort(SORTS[sort].compare), [loaded, sort]);
  const next = list.data?.nextCursor ?? null;
  return (
    <Page
      title="Stores"
      subtitle="Every location of the group, live: sync, devices, cameras and certificates."
    >
      <Filters filters={filters} sort={sort} names={names.data} set={set} />
      {names.error !== undefined && (
        <ErrorNotice error={names.error} title="Brand and region names did not load" onRetry={names.reload} />
      )}
      {list.error !== undefined && (
        <ErrorNotice error={list.error} title="The stores did not load" onRetry={list.reload} />
      )}
      {!stores && list.loading && <Loading label="Loading the stores…" />}
      {stores && <Summary stores={stores} more={next !== null || filters.cursor !== undefined} />}
      {stores && stores.length === 0 && <NoStores filtered={filtered} onClear={clear} />}
      {stores && stores.length > 0 && <StoresTable stores={stores} names={names.data} now={now} />}
      {stores && (
        <Pager
          hasPrevious={filters.cursor !== undefined}
          hasNext={next !== null}
          summary={`${formatNumber(stores.length)} stores${next || filters.cursor ? ` on this page (up to ${STORES_PAGE})` : ''}`}
          onPrevious={() => {
            const back = previous.slice(0, -1);
            setPrevious(back);
            set({ cursor: previous[previous.length - 1] });
          }}
          onNext={() => {
            setPrevious([...previous, filters.cursor ?? '']);
            set({ cursor: next ?? undefined });
          }}
        />
      )}
    </Page>
  );
}
