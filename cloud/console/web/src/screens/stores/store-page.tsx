/** The Store page: one store's live status, trade, kitchen, drive-thru, devices and fleet commands. */
import { useCallback, useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import { Empty, ErrorNotice, Loading, Page, Pill, Stat } from '../../components/ui.tsx';
import { formatAgo, formatDateTime, formatNumber, formatPercent } from '../../format.ts';
import { useLive, useNow, useResource } from '../../hooks.ts';
import { href } from '../../router.ts';
import { CommandsSection } from './commands.tsx';
import { applianceOf, loadDevices, loadNames, loadStore } from './data.ts';
import { DevicesSection } from './devices.tsx';
import { DriveThruSection, KitchenSection } from './floor.tsx';
import { OpenOrdersSection, SalesSection, useSalesToday } from './sales-orders.tsx';
import { cameraSummary, isLagging, queueText } from './stores-table.tsx';
import type { FleetStore, FleetStoreDetail } from './types.ts';

function StatusStats(props: { store: FleetStore; now: number }) {
  const { store, now } = props;
  const tz = store.timezone;
  const at = (iso: string | null) => <span title={formatDateTime(iso, tz)}>{formatAgo(iso, now)}</span>;
  return (
    <div class="stats" data-testid="store-status-stats">
      <Stat
        label="Status"
        tone={store.online ? 'ok' : 'bad'}
        value={<span data-testid="store-online">{store.online ? 'Online' : 'Offline'}</span>}
      />
      <Stat label="Last seen" value={at(store.last_seen_at)} />
      <Stat label="Last push" value={at(store.last_push_at)} />
      <Stat label="Last pull" value={at(store.last_pull_at)} />
      <Stat label="Queue" value={queueText(store)} tone={isLagging(store) ? 'warn' : undefined} />
      <Stat
        label={`Conflicts (${formatNumber(store.conflicts_24h)} in 24 h)`}
        value={formatPercent(store.conflict_rate)}
      />
      <Stat
        label="Devices offline"
        value={`${formatNumber(store.devices_offline)} of ${formatNumber(store.devices_total)}`}
        tone={store.devices_offline > 0 ? 'warn' : undefined}
      />
      <Stat label="Cameras" value={cameraSummary(store.cameras)} />
      <Stat
        label="Certs expiring ≤ 30 d"
        value={formatNumber(store.certificates_expiring_30d)}
        tone={store.certificates_expiring_30d > 0 ? 'warn' : undefined}
      />
      <Stat label="Appliance version" value={store.appliance_version ?? '—'} />
    </div>
  );
}

function Subtitle(props: { store: FleetStoreDetail }) {
  const names = useResource(() => loadNames(), []);
  const { store } = props;
  const brand = names.data?.brand.get(store.brand_id);
  const region = names.data?.region.get(store.region_id);
  return (
    <>
      {[brand, region].filter(Boolean).join(' · ')}
      {brand || region ? ' · ' : ''}
      Store time: {store.timezone}
      {store.address ? ` · ${store.address}` : ''}
      {store.location_status === 'inactive' && (
        <>
          {' '}
          <Pill tone="neutral">Inactive: left out of rollouts</Pill>
        </>
      )}
    </>
  );
}

function NotFound(props: { id: string }) {
  return (
    <Page title="Store not found">
      <Empty title="There is no such store" action={<a href={href('/stores')}>Back to the stores</a>}>
        No location of your group has the id <code>{props.id}</code>. It may have been removed, or the link is
        incomplete.
      </Empty>
    </Page>
  );
}

function StoreBody(props: { store: FleetStore; refresh: number; reload: () => void }) {
  const { store, refresh } = props;
  const id = store.location_id;
  const now = useNow(15_000);
  const devices = useResource((signal) => loadDevices(id, signal), [id, refresh]);
  const sales = useSalesToday(id, refresh);
  return (
    <>
      <StatusStats store={store} now={now} />
      <CommandsSection
        store={store}
        appliance={devices.data ? applianceOf(devices.data) : undefined}
        devicesLoaded={devices.data !== undefined}
        onChanged={props.reload}
      />
      <div class="grid-2">
        <SalesSection sales={sales} />
        <OpenOrdersSection
          locationId={id}
          timezone={store.timezone}
          currency={sales.data?.currency}
          refresh={refresh}
          now={now}
        />
        <KitchenSection
          locationId={id}
          brandId={store.brand_id}
          timezone={store.timezone}
          refresh={refresh}
          now={now}
        />
        <DriveThruSection locationId={id} refresh={refresh} now={now} />
      </div>
      <DevicesSection locationId={id} devices={devices} timezone={store.timezone} now={now} />
    </>
  );
}

export function StorePage(props: { params: Record<string, string> }) {
  const id = props.params.id ?? '';
  const [refresh, setRefresh] = useState(0);
  const reload = useCallback(() => setRefresh((n) => n + 1), []);
  const store = useResource((signal) => loadStore(id, signal), [id, refresh]);
  useLive(reload, ['store', 'rollout', 'alert'], 5_000);
  const notFound =
    store.error instanceof ApiError && (store.error.status === 404 || store.error.status === 400);
  if (notFound && !store.data) return <NotFound id={id} />;
  const data = store.data;
  return (
    <Page title={data?.name ?? 'Store'} subtitle={data ? <Subtitle store={data} /> : undefined}>
      <div data-testid="store-page" data-location-id={id}>
        <p class="small">
          <a href={href('/stores')}>← All stores</a>
        </p>
        {store.error !== undefined && (
          <ErrorNotice error={store.error} title="The store's status did not load" onRetry={reload} />
        )}
        {!data && store.loading && <Loading label="Loading the store…" />}
        {data && <StoreBody store={data} refresh={refresh} reload={reload} />}
      </div>
    </Page>
  );
}
