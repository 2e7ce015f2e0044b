/** The tenant's devices, filtered by store, type and status (kept in the URL), a page at a time. */
import { useState } from 'preact/hooks';
import { query } from '../../api.ts';
import { Empty, ErrorNotice, Field, inputValue, Loading, Pager, Pill } from '../../components/ui.tsx';
import { formatAgo, formatDateTime } from '../../format.ts';
import { nextCursorOf, useCursorPages, useLive, useResource } from '../../hooks.ts';
import { useSearch } from '../../router.ts';
import { api } from '../../session.ts';
import { useCanManageDevices } from './access.ts';
import { type DeviceAction, DeviceActionDialog } from './device-actions.tsx';
import { STATE_LABELS, TYPE_LABELS } from './labels.ts';
import { RegisterDeviceDialog } from './register.tsx';
import { type Stores, storeName, storeZone } from './stores.ts';
import { DEVICE_STATES, DEVICE_TYPES, type Device, type ListAnswer } from './types.ts';

const PAGE_SIZE = 50;

function Filters(props: { stores: Stores }) {
  const [search, setSearch] = useSearch();
  return (
    <div class="toolbar" data-testid="device-filters">
      <Field label="Store">
        <select value={search.get('store') ?? ''} onChange={(e) => setSearch({ store: inputValue(e) })}>
          <option value="">All stores</option>
          {props.stores.list.map((store) => (
            <option key={store.id} value={store.id}>
              {store.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Type">
        <select value={search.get('type') ?? ''} onChange={(e) => setSearch({ type: inputValue(e) })}>
          <option value="">All types</option>
          {DEVICE_TYPES.map((type) => (
            <option key={type} value={type}>
              {TYPE_LABELS[type]}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Status">
        <select value={search.get('status') ?? ''} onChange={(e) => setSearch({ status: inputValue(e) })}>
          <option value="">Any status</option>
          {DEVICE_STATES.map((state) => (
            <option key={state} value={state}>
              {STATE_LABELS[state].label}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );
}

function StatusCell({ device, now }: { device: Device; now: number }) {
  const state = STATE_LABELS[device.state];
  const expires = device.enrollment_token_expires_at;
  return (
    <td>
      <Pill tone={state.tone}>{state.label}</Pill>
      {device.state === 'pending_activation' && expires && (
        <div class="muted small">
          {new Date(expires).getTime() < now
            ? 'Token expired: make a new one'
            : `Token valid until ${formatDateTime(expires)}`}
        </div>
      )}
    </td>
  );
}

function DeviceRow(props: { device: Device; stores: Stores; onAction: (action: DeviceAction) => void }) {
  const { device, stores } = props;
  const now = Date.now();
  const live = useCanManageDevices() && device.state !== 'revoked';
  return (
    <tr data-testid="device-row" data-device-id={device.id}>
      <td>
        <strong>{device.name}</strong>
        <div class="muted small">
          {TYPE_LABELS[device.device_type]}
          {device.model ? ` · ${device.model}` : ''}
        </div>
      </td>
      <td>
        <code class="dev-serial">{device.serial_number}</code>
      </td>
      <td>{storeName(stores, device.location_id)}</td>
      <StatusCell device={device} now={now} />
      <td title={device.last_seen_at ? formatAgo(device.last_seen_at, now) : undefined}>
        {device.last_seen_at
          ? formatDateTime(device.last_seen_at, storeZone(stores, device.location_id))
          : 'Never'}
      </td>
      <td>{device.firmware_version ?? '—'}</td>
      <td class="dev-actions">
        {live && device.state !== 'pending_activation' && (
          <button
            type="button"
            class="btn small"
            aria-label={`Restart ${device.name}`}
            onClick={() => props.onAction('restart')}
          >
            Restart
          </button>
        )}
        {live && (
          <button
            type="button"
            class="btn small"
            aria-label={`New token for ${device.name}`}
            onClick={() => props.onAction('token')}
          >
            New token
          </button>
        )}
        {live && (
          <button
            type="button"
            class="btn small dev-danger"
            aria-label={`Revoke ${device.name}`}
            onClick={() => props.onAction('revoke')}
          >
            Revoke
          </button>
        )}
      </td>
    </tr>
  );
}

function DeviceTable(props: {
  devices: Device[];
  stores: Stores;
  onAction: (device: Device, action: DeviceAction) => void;
}) {
  return (
    <div class="table-wrap">
      <table class="table" data-testid="devices-table">
        <thead>
          <tr>
            <th scope="col">Name and type</th>
            <th scope="col">Serial</th>
            <th scope="col">Store</th>
            <th scope="col">Status</th>
            <th scope="col">Last seen</th>
            <th scope="col">Version</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.devices.map((device) => (
            <DeviceRow
              key={device.id}
              device={device}
              stores={props.stores}
              onAction={(action) => props.onAction(device, action)}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function DevicesTab(props: { stores: Stores }) {
  const [search, setSearch] = useSearch();
  const filters = {
    location_id: search.get('store'),
    device_type: search.get('type'),
    state: search.get('status'),
  };
  const filtersKey = JSON.stringify(filters);
  const pages = useCursorPages(filtersKey);
  const list = useResource(
    (signal) =>
      api.get<ListAnswer<Device>>(
        `/v1/mdm/devices${query({ ...filters, limit: PAGE_SIZE, cursor: pages.cursor })}`,
        signal,
      ),
    [filtersKey, pages.cursor],
  );
  useLive(list.reload, ['store', 'device'], 15_000);
  const manage = useCanManageDevices();
  const [acting, setActing] = useState<{ device: Device; action: DeviceAction }>();
  const [registering, setRegistering] = useState(false);
  const [message, setMessage] = useState<string>();
  const filtered = Boolean(filters.location_id || filters.device_type || filters.state);
  const devices = list.data?.data ?? [];
  const next = nextCursorOf(list.data);
  const closeAction = (done?: string) => {
    setActing(undefined);
    if (done) setMessage(done);
    list.reload();
  };
  const register = (
    <button
      type="button"
      class="btn primary"
      data-testid="register-device"
      onClick={() => setRegistering(true)}
    >
      Register device
    </button>
  );
  return (
    <div>
      <div class="dev-toolbar">
        <Filters stores={props.stores} />
        {manage && register}
      </div>
      {message && (
        <p class="notice ok" role="status">
          {message}
        </p>
      )}
      {list.error !== undefined && (
        <ErrorNotice error={list.error} onRetry={list.reload} title="The devices could not be loaded" />
      )}
      {list.data === undefined && list.loading && <Loading label="Loading devices…" />}
      {list.data !== undefined && devices.length === 0 && (
        <Empty
          title={filtered ? 'No device matches these filters' : 'No devices yet'}
          action={
            filtered ? (
              <button
                type="button"
                class="btn"
                onClick={() => setSearch({ store: '', type: '', status: '' })}
              >
                Clear the filters
              </button>
            ) : (
              manage && (
                <button type="button" class="btn primary" onClick={() => setRegistering(true)}>
                  Register the first device
                </button>
              )
            )
          }
        >
          {filtered
            ? 'Choose another store, type or status, or clear the filters to see every device.'
            : "Register each store's appliance first, then its screens, printers, cameras and sensors: each gets a one-time token to enrol with."}
        </Empty>
      )}
      {devices.length > 0 && (
        <DeviceTable
          devices={devices}
          stores={props.stores}
          onAction={(device, action) => setActing({ device, action })}
        />
      )}
      <Pager
        hasPrevious={pages.hasPrevious}
        hasNext={next !== null}
        onPrevious={pages.previous}
        onNext={() => next && pages.next(next)}
        summary={devices.length > 0 ? `Page ${pages.page} · ${devices.length} devices` : undefined}
      />
      {acting && (
        <DeviceActionDialog
          action={acting.action}
          device={acting.device}
          storeName={storeName(props.stores, acting.device.location_id)}
          onClose={closeAction}
        />
      )}
      {registering && (
        <RegisterDeviceDialog
          stores={props.stores}
          onClose={(done) => {
            setRegistering(false);
            if (done) list.reload();
          }}
        />
      )}
    </div>
  );
}
