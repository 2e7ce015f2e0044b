/** Every MQTT device of the store: online or not, last seen, temperature, alerts; managers restart. */
import { useNow } from '../../hooks.ts';
import { type Session, useStore } from '../../store.ts';
import { DeviceRow } from './device-row.tsx';
import './devices.css';

export function DevicesScreen(props: { session: Session }) {
  const now = useNow(1000);
  const devices = useStore((s) => s.topics.devices);
  if (!devices) return <p class="muted">Reading devices…</p>;
  const open = devices.alerts.filter((a) => a.cleared_at === null);
  const online = devices.items.filter((d) => d.status === 'online').length;
  return (
    <div class="devices-screen">
      <h2>
        Devices{' '}
        <span class="count">
          {online} of {devices.items.length} online
        </span>
      </h2>
      {open.length > 0 && (
        <section class="alerts-panel" aria-label="Active alerts" role="alert">
          {open.map((alert) => (
            <p key={alert.id} class={`alert-line ${alert.severity}`}>
              <strong>{alert.device_id}</strong>: {alert.description}
            </p>
          ))}
        </section>
      )}
      {devices.items.length === 0 && <p class="empty">No devices have connected yet.</p>}
      <ul class="device-list">
        {devices.items.map((device) => (
          <DeviceRow
            key={device.id}
            device={device}
            alerts={open.filter((a) => a.device_id === device.id)}
            now={now}
            manager={props.session.manager}
          />
        ))}
      </ul>
    </div>
  );
}
