/** The store page's devices: what the registry holds for the store, appliance first. */
import { Empty, ErrorNotice, Loading, Pill, Section, type Tone } from '../../components/ui.tsx';
import { formatAgo, formatDateTime } from '../../format.ts';
import type { Resource } from '../../hooks.ts';
import { href } from '../../router.ts';
import type { Device, DeviceState, DeviceType } from './types.ts';

const STATE_TONE: Record<DeviceState, Tone> = {
  online: 'ok',
  active: 'info',
  offline: 'bad',
  pending_activation: 'neutral',
  revoked: 'neutral',
};
const STATE_LABEL: Record<DeviceState, string> = {
  online: 'Online',
  active: 'Active',
  offline: 'Offline',
  pending_activation: 'Waiting for enrolment',
  revoked: 'Revoked',
};
const TYPE_LABEL: Record<DeviceType, string> = {
  appliance: 'Appliance',
  pos: 'POS',
  kds: 'Kitchen screen',
  printer: 'Printer',
  sensor: 'Sensor',
  camera: 'Camera',
};
const EXPIRY_WARN_MS = 30 * 86_400_000;

const order = (d: Device) => (d.device_type === 'appliance' ? 0 : 1);

function Expiry(props: { at: string | null; timezone: string; now: number }) {
  if (!props.at) return <>—</>;
  const left = Date.parse(props.at) - props.now;
  const text = formatDateTime(props.at, props.timezone);
  if (left <= 0) return <Pill tone="bad">{`Expired ${text}`}</Pill>;
  if (left <= EXPIRY_WARN_MS) return <Pill tone="warn">{text}</Pill>;
  return <>{text}</>;
}

function DeviceRows(props: { devices: Device[]; timezone: string; now: number }) {
  const sorted = [...props.devices].sort((a, b) => order(a) - order(b) || a.name.localeCompare(b.name));
  return (
    <div class="table-wrap">
      <table class="table" data-testid="store-devices">
        <thead>
          <tr>
            <th scope="col">Device</th>
            <th scope="col">Type</th>
            <th scope="col">State</th>
            <th scope="col">Version</th>
            <th scope="col">Last seen</th>
            <th scope="col">Certificate until</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((d) => (
            <tr key={d.id} data-device-id={d.id}>
              <th scope="row" class="plain">
                {d.name}
                <span class="muted small block">{d.serial_number}</span>
              </th>
              <td>{TYPE_LABEL[d.device_type]}</td>
              <td>
                <Pill tone={STATE_TONE[d.state]}>{STATE_LABEL[d.state]}</Pill>
              </td>
              <td>{d.firmware_version ? <code>{d.firmware_version}</code> : '—'}</td>
              <td title={formatDateTime(d.last_seen_at, props.timezone)}>
                {formatAgo(d.last_seen_at, props.now)}
              </td>
              <td>
                <Expiry at={d.certificate_expires_at} timezone={props.timezone} now={props.now} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function DevicesSection(props: {
  locationId: string;
  devices: Resource<Device[]>;
  timezone: string;
  now: number;
}) {
  const { data, error, loading, reload } = props.devices;
  const manage = <a href={href(`/devices?location_id=${props.locationId}`)}>Manage devices</a>;
  return (
    <Section title="Devices" actions={manage}>
      {error !== undefined && <ErrorNotice error={error} title="The devices did not load" onRetry={reload} />}
      {!data && loading && <Loading label="Loading the devices…" />}
      {data && data.length === 0 && (
        <Empty title="No devices registered" action={manage}>
          Register the store's appliance, tills and kitchen screens on the Devices screen, then enrol each
          with its one-time token.
        </Empty>
      )}
      {data && data.length > 0 && <DeviceRows devices={data} timezone={props.timezone} now={props.now} />}
    </Section>
  );
}
