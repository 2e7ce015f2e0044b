/** One rollout's stores in rollout order: each store's state, download progress and reason. */
import { query } from '../../api.ts';
import { Empty, ErrorNotice, Loading, Pager, Pill, ProgressBar } from '../../components/ui.tsx';
import { formatDateTime, formatPercent } from '../../format.ts';
import { nextCursorOf, useCursorPages, useLive, useResource } from '../../hooks.ts';
import { api } from '../../session.ts';
import { STORE_STATE_LABELS } from './labels.ts';
import { type Stores, storeName, storeZone } from './stores.ts';
import type { ListAnswer, RolloutStore } from './types.ts';

const PAGE_SIZE = 100;

function Download({ store, name }: { store: RolloutStore; name: string }) {
  if (store.state === 'healthy') return <span class="muted small">Done</span>;
  if (store.state !== 'downloading' && store.progress === 0) return <span class="muted small">—</span>;
  return (
    <div class="dev-download">
      <ProgressBar label={`Download at ${name}`} value={store.progress} />
      <span class="small num">{formatPercent(store.progress, 0)}</span>
    </div>
  );
}

function StoreRow({ store, stores }: { store: RolloutStore; stores: Stores }) {
  const name = storeName(stores, store.location_id);
  const state = STORE_STATE_LABELS[store.state];
  return (
    <tr data-testid="rollout-store-row" data-location-id={store.location_id}>
      <td>{name}</td>
      <td class="num">{store.wave}</td>
      <td>
        <Pill tone={state.tone}>{state.label}</Pill>
        {store.attempts > 1 && <div class="muted small">{store.attempts} attempts</div>}
      </td>
      <td>
        <Download store={store} name={name} />
      </td>
      <td>
        {store.from_version ?? '—'} → {store.to_version}
      </td>
      <td class="dev-reason">{store.reason ?? ''}</td>
      <td>{formatDateTime(store.updated_at, storeZone(stores, store.location_id))}</td>
    </tr>
  );
}

export function RolloutStores(props: { rolloutId: string; version: string; stores: Stores }) {
  const pages = useCursorPages(props.rolloutId);
  const list = useResource(
    (signal) =>
      api.get<ListAnswer<RolloutStore>>(
        `/v1/mdm/rollouts/${encodeURIComponent(props.rolloutId)}/stores${query({ limit: PAGE_SIZE, cursor: pages.cursor })}`,
        signal,
      ),
    [props.rolloutId, pages.cursor],
  );
  useLive(list.reload, ['rollout', 'store'], 5_000);
  const rows = list.data?.data ?? [];
  const next = nextCursorOf(list.data);
  if (list.error !== undefined && !list.data)
    return (
      <ErrorNotice
        error={list.error}
        onRetry={list.reload}
        title="The rollout's stores could not be loaded"
      />
    );
  if (!list.data) return <Loading label="Loading the rollout's stores…" />;
  if (rows.length === 0)
    return (
      <Empty title="No stores in this rollout">
        Stores are added when the rollout starts; none had an enrolled appliance.
      </Empty>
    );
  return (
    <div class="dev-rollout-stores">
      <div class="table-wrap">
        <table
          class="table"
          data-testid="rollout-stores-table"
          aria-label={`Stores of the rollout of ${props.version}`}
        >
          <thead>
            <tr>
              <th scope="col">Store</th>
              <th scope="col" class="num">
                Wave
              </th>
              <th scope="col">State</th>
              <th scope="col">Download</th>
              <th scope="col">Version</th>
              <th scope="col">Reason</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((store) => (
              <StoreRow key={store.location_id} store={store} stores={props.stores} />
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        hasPrevious={pages.hasPrevious}
        hasNext={next !== null}
        onPrevious={pages.previous}
        onNext={() => next && pages.next(next)}
      />
    </div>
  );
}
