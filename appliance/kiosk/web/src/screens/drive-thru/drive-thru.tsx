/**
 * The drive-thru: the queue now (from the feed's drive_thru topic, waits ticking between updates),
 * the shift's queue and wait chart (history, every minute and when the lane changes), and the
 * lane cameras with what they detect.
 */
import { useEffect } from 'preact/hooks';
import { useLoad, useNow, useThrottled } from '../../hooks.ts';
import { formatAge, formatDuration } from '../../lib/format.ts';
import { api } from '../../session.ts';
import { useStore } from '../../store.ts';
import { useCameras } from '../../topics.ts';
import type { LaneBucket, LaneStatus } from '../../types.ts';
import { CameraThumb } from './camera-thumb.tsx';
import { QueueChart } from './queue-chart.tsx';
import './drive-thru.css';

function Queue(props: { lane: LaneStatus; since: number; now: number }) {
  const { lane } = props;
  const drift = Math.max(0, Math.floor((props.now - props.since) / 1000));
  return (
    <section class="lane" aria-label="Drive-thru queue">
      <div class="figures">
        <div class={`figure-card lane-status ${lane.status}`}>
          <span class="figure-label">Status</span>
          <span class="figure upper" data-testid="lane-status">
            {lane.status}
          </span>
          {!lane.online && <span class="error-text">Lane camera offline: last figures</span>}
        </div>
        <div class="figure-card">
          <span class="figure-label">Cars in lane</span>
          <span class="figure" data-testid="lane-queue">
            {lane.queue_length}
          </span>
        </div>
        <div class="figure-card">
          <span class="figure-label">Estimated wait</span>
          <span class="figure">{formatDuration(lane.estimated_wait_seconds)}</span>
        </div>
        <div class="figure-card">
          <span class="figure-label">Orders per hour</span>
          <span class="figure">{Math.round(lane.orders_per_hour)}</span>
        </div>
      </div>
      <ol class="cars" aria-label="Cars, front first">
        {lane.cars.length === 0 && <li class="empty">No cars in the lane.</li>}
        {lane.cars.map((car) => (
          <li key={car.track_id} class="car" data-testid="lane-car">
            <span class="car-position">{car.position}</span>
            <span class="car-zone">{car.zone.replace(/_/g, ' ')}</span>
            <span class="car-wait">{formatAge(car.wait_seconds + drift)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

export function DriveThruScreen() {
  const now = useNow(1000);
  const lane = useStore((s) => s.topics.drive_thru);
  const laneAt = useStore((s) => s.topicAt.drive_thru ?? Date.now());
  // Without `since` the appliance starts at its business day's start: the shift.
  const history = useLoad(
    () => api.get<{ buckets: LaneBucket[] }>('/api/vision/drive-thru/history?bucket_minutes=5'),
    [],
    60_000,
  );
  const cameras = useCameras();
  const refreshHistory = useThrottled(history.reload, 15_000);
  useEffect(() => refreshHistory(), [laneAt]);

  const all = cameras?.filter((c) => c.enabled) ?? [];
  const laneCameras = all.filter((c) => c.type === 'drive_thru_lane');
  const shown = (laneCameras.length > 0 ? laneCameras : all).slice(0, 4);

  return (
    <div class="drive-thru-screen">
      {lane === undefined && <p class="muted">Reading the lane…</p>}
      {lane === null && <p class="empty">No drive-thru lane camera is running.</p>}
      {lane && <Queue lane={lane} since={laneAt} now={now} />}
      <section class="panel" aria-label="Queue over the shift">
        <h2>Queue and wait this shift</h2>
        {history.data ? (
          <QueueChart buckets={history.data.buckets} />
        ) : (
          <p class="muted">{history.error ? `History unavailable: ${history.error.message}` : 'Loading…'}</p>
        )}
      </section>
      <section class="panel" aria-label="Lane cameras">
        <h2>Cameras</h2>
        <div class="thumbs">
          {shown.map((camera) => (
            <CameraThumb key={camera.id} cameraId={camera.id} name={camera.name} />
          ))}
          {cameras && shown.length === 0 && <p class="empty">No cameras.</p>}
        </div>
      </section>
    </div>
  );
}
