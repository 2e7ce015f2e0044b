import { useMemo, useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import { Chart } from '../../components/chart.tsx';
import { ProgressBar } from '../../components/progress.tsx';
import { formatRelative } from '../../lib/format.ts';
import { api } from '../../session.ts';
import { useStore } from '../../store.ts';
import type { Device, DeviceAlert } from '../../types.ts';
import { temperatureOf, useTemperature } from './temperature.ts';

function Sparkline(props: { device: Device; manager: boolean }) {
  const points = useTemperature(props.device, props.manager);
  const data = useMemo(
    () => [points.map((p) => p.at / 1000), points.map((p) => p.value)] as [number[], number[]],
    [points],
  );
  const { min_temperature_c: min, max_temperature_c: max } = props.device.settings;
  const guides = [
    ...(max === undefined ? [] : [{ value: max, stroke: '#ff4d4f' }]),
    ...(min === undefined ? [] : [{ value: min, stroke: '#4ea1ff' }]),
  ];
  if (points.length < 2) return <span class="muted spark-empty">collecting…</span>;
  return (
    <Chart
      label={`Temperature over the last hour${max === undefined ? '' : `, limit ${max} °C`}`}
      data={data}
      height={48}
      sparkline
      guides={guides}
      series={[{ label: 'Temperature', stroke: '#3ddc84', width: 2 }]}
    />
  );
}

type RestartState =
  | { phase: 'idle' | 'confirm' | 'waiting' }
  | { phase: 'done'; ok: boolean; message: string };

/** The device has this long to acknowledge (the appliance's default is 30 s), plus the trip. */
const RESTART_TIMEOUT_MS = 45_000;

/**
 * The restart answers once the device acknowledges it (or 502/504 when it refuses or stays
 * silent), so the bar runs until then; a matching action on the feed's board gives its progress.
 */
function RestartButton(props: { device: Device }) {
  const [restart, setRestart] = useState<RestartState>({ phase: 'idle' });
  const id = props.device.id;
  const action = useStore((s) =>
    s.topics.actions.find((a) => a.kind === 'device_restart' && `${a.label} ${a.detail ?? ''}`.includes(id)),
  );
  const send = async () => {
    setRestart({ phase: 'waiting' });
    try {
      await api.post(`/v1/devices/${encodeURIComponent(id)}/restart`, undefined, {
        timeoutMs: RESTART_TIMEOUT_MS,
      });
      setRestart({ phase: 'done', ok: true, message: 'Restart acknowledged by the device' });
    } catch (e) {
      setRestart({
        phase: 'done',
        ok: false,
        message: e instanceof ApiError ? e.message : 'The restart was not sent',
      });
    }
  };
  if (restart.phase === 'waiting' || restart.phase === 'done') {
    const done = restart.phase === 'done';
    return (
      <div class="restart-progress" data-testid="restart-progress" aria-live="polite">
        <span class={done ? (restart.ok ? 'ok-text' : 'error-text') : ''}>
          {done ? restart.message : 'Restarting: waiting for the device…'}
        </span>
        <ProgressBar
          label={`Restart of ${id}`}
          pct={done ? 100 : (action?.progress_pct ?? null)}
          tone={done ? (restart.ok ? 'ok' : 'bad') : undefined}
        />
        {done && (
          <button type="button" class="btn" onClick={() => setRestart({ phase: 'idle' })}>
            OK
          </button>
        )}
      </div>
    );
  }
  const confirming = restart.phase === 'confirm';
  return (
    <div class="row-actions">
      <button
        type="button"
        class={`btn ${confirming ? 'danger' : ''}`}
        data-testid="device-restart"
        disabled={props.device.status === 'offline'}
        aria-label={confirming ? `Confirm restart of ${id}` : `Restart ${id}`}
        onClick={() => (confirming ? send() : setRestart({ phase: 'confirm' }))}
      >
        {confirming ? 'Tap again to restart' : 'Restart'}
      </button>
      {confirming && (
        <button type="button" class="btn" onClick={() => setRestart({ phase: 'idle' })}>
          Cancel
        </button>
      )}
    </div>
  );
}

export function DeviceRow(props: { device: Device; alerts: DeviceAlert[]; now: number; manager: boolean }) {
  const { device } = props;
  const temperature = temperatureOf(device);
  return (
    <li class={`device-row ${device.status}`} data-testid="device-row" data-device-id={device.id}>
      <div class="device-main">
        <span class={`badge ${device.status === 'online' ? 'ok' : 'bad'}`} data-testid="device-status">
          {device.status}
        </span>
        <div class="device-name">
          <strong>{device.id}</strong>
          <span class="muted">
            {device.device_type}
            {device.firmware ? ` · ${device.firmware}` : ''}
          </span>
        </div>
      </div>
      <div class="device-seen">
        <span class="figure-label">Last seen</span>
        <span data-testid="device-last-seen">{formatRelative(device.last_seen_at, props.now)}</span>
      </div>
      <div class="device-telemetry">
        {temperature !== undefined && <span class="temperature">{temperature.toFixed(1)} °C</span>}
        {temperature !== undefined && <Sparkline device={device} manager={props.manager} />}
      </div>
      <div class="device-alerts">
        {props.alerts.map((alert) => (
          <span key={alert.id} class={`alert-chip ${alert.severity}`} role="status">
            {alert.description}
          </span>
        ))}
      </div>
      {props.manager && <RestartButton device={device} />}
    </li>
  );
}
