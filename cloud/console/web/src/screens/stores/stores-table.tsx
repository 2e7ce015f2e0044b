/**
 * The stores table. Rows are plain markup from one function (no component, hook or request per
 * row), so hundreds of stores render in one pass.
 */
import { Pill } from '../../components/ui.tsx';
import { formatAgo, formatDateTime, formatNumber, formatPercent } from '../../format.ts';
import { href } from '../../router.ts';
import type { Names } from './data.ts';
import type { FleetStore, StoreCamera } from './types.ts';

/** A sync conflict share above this is worth a look. */
const CONFLICT_WARN = 0.02;
/** Changes waiting longer than this on an appliance mean it is not getting through. */
const LAG_WARN_SECONDS = 300;

/** Store, brand, region, status, push, pull, queue, conflicts, devices, cameras, certificates, version. */
const COLUMN_WIDTHS = ['12%', '9%', '6%', '11%', '7%', '7%', '10%', '7%', '7%', '8%', '6%', '10%'];

export function cameraSummary(cameras: readonly StoreCamera[]): string {
  if (cameras.length === 0) return '—';
  const running = cameras.filter((c) => c.status === 'online');
  const fps = running.length === 0 ? 0 : running.reduce((sum, c) => sum + c.fps, 0) / running.length;
  const off = cameras.length - running.length;
  return `${cameras.length} · ${fps.toFixed(1)} fps${off > 0 ? ` · ${off} off` : ''}`;
}

function cameraTitle(cameras: readonly StoreCamera[]): string | undefined {
  if (cameras.length === 0) return undefined;
  return cameras.map((c) => `${c.name}: ${c.status}, ${c.fps.toFixed(1)} fps`).join('\n');
}

export function StatusPill(props: { online: boolean; testId: string }) {
  return (
    <span data-testid={props.testId}>
      <Pill tone={props.online ? 'ok' : 'bad'}>{props.online ? 'Online' : 'Offline'}</Pill>
    </span>
  );
}

/** "45 s", "12 min", "3 h", "2 d": an age that fits a narrow column. */
export function shortDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '—';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}

/** Changes waiting on the appliance and how old the oldest is; "—" for a store never heard from. */
export function queueText(store: Pick<FleetStore, 'queue_depth' | 'lag_seconds'>): string {
  if (store.queue_depth === null) return '—';
  if (store.queue_depth === 0) return '0';
  return `${formatNumber(store.queue_depth)} · ${shortDuration(store.lag_seconds)}`;
}

export const isLagging = (store: Pick<FleetStore, 'queue_depth' | 'lag_seconds'>) =>
  (store.queue_depth ?? 0) > 0 && (store.lag_seconds ?? 0) > LAG_WARN_SECONDS;

function row(store: FleetStore, names: Names | undefined, now: number) {
  const tz = store.timezone;
  const lagging = isLagging(store);
  return (
    <tr key={store.location_id} data-testid="store-row" data-location-id={store.location_id}>
      <th scope="row">
        <a href={href(`/stores/${store.location_id}`)}>{store.name}</a>
      </th>
      <td>{names?.brand.get(store.brand_id) ?? '…'}</td>
      <td>{names?.region.get(store.region_id) ?? '…'}</td>
      <td>
        <StatusPill online={store.online} testId="store-status" />
        <span class="muted small seen" title={formatDateTime(store.last_seen_at, tz)}>
          {store.last_seen_at ? `seen ${formatAgo(store.last_seen_at, now)}` : 'never seen'}
        </span>
      </td>
      <td title={formatDateTime(store.last_push_at, tz)}>{formatAgo(store.last_push_at, now)}</td>
      <td title={formatDateTime(store.last_pull_at, tz)}>{formatAgo(store.last_pull_at, now)}</td>
      <td class={`num ${lagging ? 'warn-text' : ''}`}>
        {store.queue_depth === null ? '—' : formatNumber(store.queue_depth)}
        {(store.queue_depth ?? 0) > 0 && (
          <span class="muted small seen">oldest {shortDuration(store.lag_seconds)}</span>
        )}
      </td>
      <td
        class={`num ${store.conflict_rate > CONFLICT_WARN ? 'warn-text' : ''}`}
        title={`${store.conflicts_24h} conflicts in ${store.changes_24h} changes over 24 h`}
      >
        {formatPercent(store.conflict_rate)}
      </td>
      <td class="num">
        {store.devices_offline > 0 ? (
          <Pill tone="warn">{`${store.devices_offline} of ${store.devices_total}`}</Pill>
        ) : (
          `0 of ${store.devices_total}`
        )}
      </td>
      <td class="num" title={cameraTitle(store.cameras)}>
        {cameraSummary(store.cameras)}
      </td>
      <td class="num">
        {store.certificates_expiring_30d > 0 ? (
          <Pill tone="warn">{formatNumber(store.certificates_expiring_30d)}</Pill>
        ) : (
          '0'
        )}
      </td>
      <td>{store.appliance_version ? <code>{store.appliance_version}</code> : '—'}</td>
    </tr>
  );
}

export function StoresTable(props: { stores: FleetStore[]; names: Names | undefined; now: number }) {
  return (
    <div class="table-wrap">
      <table class="table stores-table" data-testid="stores-table">
        <caption class="visually-hidden">Stores with their live status</caption>
        <colgroup>
          {COLUMN_WIDTHS.map((width, index) => (
            <col key={index} style={{ width }} />
          ))}
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Store</th>
            <th scope="col">Brand</th>
            <th scope="col">Region</th>
            <th scope="col">Status</th>
            <th scope="col">Last push</th>
            <th scope="col">Last pull</th>
            <th scope="col" class="num">
              Queue
            </th>
            <th scope="col" class="num">
              Conflict rate
            </th>
            <th scope="col" class="num">
              Devices offline
            </th>
            <th scope="col" class="num">
              Cameras
            </th>
            <th scope="col" class="num">
              Certs ≤ 30 d
            </th>
            <th scope="col">Version</th>
          </tr>
        </thead>
        <tbody>{props.stores.map((store) => row(store, props.names, props.now))}</tbody>
      </table>
    </div>
  );
}
