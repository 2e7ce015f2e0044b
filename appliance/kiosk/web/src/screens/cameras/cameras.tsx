/**
 * Cameras: each one's pipeline state, frame rate and inference latency (the feed's cameras
 * topic), its settings form, and calibration (a still to draw zones on; managers).
 */
import { useState } from 'preact/hooks';
import { api } from '../../session.ts';
import type { Session } from '../../store.ts';
import { useCameras } from '../../topics.ts';
import type { CameraStatus } from '../../types.ts';
import { SettingsForm } from './settings-form.tsx';
import './cameras.css';

interface Calibration {
  width: number;
  height: number;
  lane_ready: boolean | null;
  missing_zones: string[];
}

const ms = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : `${Math.round(value)} ms`;

function Calibrate(props: { camera: CameraStatus }) {
  const [state, setState] = useState<{ busy?: boolean; result?: Calibration; error?: string }>({});
  const run = async () => {
    setState({ busy: true });
    try {
      const path = `/v1/vision/cameras/${encodeURIComponent(props.camera.id)}/calibrate`;
      setState({ result: await api.post<Calibration>(path, undefined, { timeoutMs: 30_000 }) });
    } catch (e) {
      setState({ error: (e as Error).message });
    }
  };
  const result = state.result;
  return (
    <div class="calibrate">
      <button
        type="button"
        class="btn"
        data-testid="camera-calibrate"
        disabled={state.busy}
        aria-label={`Calibrate ${props.camera.name}`}
        onClick={run}
      >
        {state.busy ? 'Calibrating…' : 'Calibrate'}
      </button>
      {state.error && (
        <span class="error-text" role="alert">
          {state.error}
        </span>
      )}
      {result && (
        <span class={result.missing_zones.length > 0 ? 'error-text' : 'ok-text'} role="status">
          Still taken at {result.width}×{result.height}.
          {result.lane_ready === false && ` Lane zones missing: ${result.missing_zones.join(', ')}.`}
          {result.lane_ready === true && ' Lane zones complete.'}
        </span>
      )}
    </div>
  );
}

function CameraCard(props: {
  camera: CameraStatus;
  selected: boolean;
  manager: boolean;
  onSelect: () => void;
}) {
  const { camera } = props;
  const good = camera.state === 'running';
  return (
    <li
      class={`camera-card ${props.selected ? 'selected' : ''}`}
      data-testid="camera-card"
      data-camera-id={camera.id}
    >
      <button type="button" class="camera-pick" aria-pressed={props.selected} onClick={props.onSelect}>
        <span class="camera-name">{camera.name}</span>
        <span class="muted">{camera.type.replace(/_/g, ' ')}</span>
      </button>
      <div class="camera-figures">
        <span class={`badge ${good ? 'ok' : 'bad'}`} data-testid="camera-state">
          {camera.state}
        </span>
        <span>{camera.fps.toFixed(1)} fps</span>
        <span>p50 {ms(camera.inference_latency_ms?.p50)}</span>
        <span>p99 {ms(camera.inference_latency_ms?.p99)}</span>
      </div>
      {camera.reason && <p class="error-text">{camera.reason}</p>}
      {props.manager && <Calibrate camera={camera} />}
    </li>
  );
}

export function CamerasScreen(props: { session: Session }) {
  const cameras = useCameras();
  const [selected, setSelected] = useState<string>();
  if (!cameras) return <p class="muted">Reading cameras…</p>;
  if (cameras.length === 0) return <p class="empty">No cameras are registered.</p>;
  const current = cameras.find((c) => c.id === selected) ?? cameras[0]!;

  return (
    <div class="cameras-screen">
      <ul class="camera-list" aria-label="Cameras">
        {cameras.map((camera) => (
          <CameraCard
            key={camera.id}
            camera={camera}
            selected={current.id === camera.id}
            manager={props.session.manager}
            onSelect={() => setSelected(camera.id)}
          />
        ))}
      </ul>
      <section class="panel" aria-label="Camera settings">
        <SettingsForm
          key={current.id}
          cameraId={current.id}
          cameraName={current.name}
          editable={props.session.manager}
        />
      </section>
    </div>
  );
}
