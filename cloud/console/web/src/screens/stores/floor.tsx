/** The store page's floor: how loaded the kitchen is and how long the drive-thru lanes are. */
import { ApiError, describeError } from '../../api.ts';
import { Empty, ErrorNotice, Loading, Pill, Section, Stat, type Tone } from '../../components/ui.tsx';
import { formatAgo, formatDuration, formatNumber, formatTime } from '../../format.ts';
import { useResource } from '../../hooks.ts';
import { api } from '../../session.ts';
import { loadCameras, repeated } from './data.ts';
import type { DriveThruStatus, ItemPage, Order } from './types.ts';

/** The orders counted at once: a kitchen with more tickets than this shows "200+". */
const KITCHEN_SAMPLE = 200;

interface KitchenLoad {
  inKitchen: Order[];
  ready: Order[];
  more: boolean;
  stations: string[];
}

async function loadKitchen(locationId: string, brandId: string, signal: AbortSignal): Promise<KitchenLoad> {
  const [orders, stations] = await Promise.all([
    api.data<ItemPage<Order>>(
      `/v1/commerce/orders${repeated({ location_id: locationId, limit: KITCHEN_SAMPLE }, 'status', ['sent', 'ready'])}`,
      signal,
    ),
    api
      .data<ItemPage<{ name: string; position: number }>>(
        `/v1/commerce/kitchen/stations?brand_id=${encodeURIComponent(brandId)}&limit=200`,
        signal,
      )
      .then((page) => page.items.sort((a, b) => a.position - b.position).map((s) => s.name)),
  ]);
  return {
    inKitchen: orders.items.filter((o) => o.status === 'sent'),
    ready: orders.items.filter((o) => o.status === 'ready'),
    more: orders.next_cursor !== null,
    stations,
  };
}

function KitchenFigures(props: { load: KitchenLoad; timezone: string; now: number }) {
  const { load, now } = props;
  const plus = load.more ? '+' : '';
  const itemsWaiting = load.inKitchen.reduce(
    (n, o) => n + o.items.filter((i) => i.status !== 'complete').reduce((q, i) => q + i.quantity, 0),
    0,
  );
  const oldest = load.inKitchen.reduce<string | undefined>(
    (min, o) => (min === undefined || o.created_at < min ? o.created_at : min),
    undefined,
  );
  const oldestSeconds = oldest ? (now - Date.parse(oldest)) / 1000 : null;
  return (
    <>
      <div class="stats">
        <Stat label="Tickets in the kitchen" value={`${formatNumber(load.inKitchen.length)}${plus}`} />
        <Stat label="Items still to make" value={`${formatNumber(itemsWaiting)}${plus}`} />
        <Stat
          label="Oldest ticket"
          value={oldestSeconds === null ? '—' : formatDuration(oldestSeconds)}
          tone={oldestSeconds !== null && oldestSeconds > 900 ? 'warn' : undefined}
        />
        <Stat label="Ready, waiting for pickup" value={`${formatNumber(load.ready.length)}${plus}`} />
      </div>
      <p class="muted small">
        {oldest ? `Oldest ticket opened at ${formatTime(oldest, props.timezone)}. ` : ''}
        {load.stations.length > 0
          ? `Stations: ${load.stations.join(', ')}.`
          : 'The brand has no kitchen stations set up.'}
      </p>
    </>
  );
}

export function KitchenSection(props: {
  locationId: string;
  brandId: string;
  timezone: string;
  refresh: number;
  now: number;
}) {
  const kitchen = useResource(
    (signal) => loadKitchen(props.locationId, props.brandId, signal),
    [props.locationId, props.brandId, props.refresh],
  );
  const { data, error, loading, reload } = kitchen;
  return (
    <Section title="Kitchen load">
      {error !== undefined && (
        <ErrorNotice error={error} title="The kitchen load did not load" onRetry={reload} />
      )}
      {!data && loading && <Loading label="Loading the kitchen…" />}
      {data && data.inKitchen.length === 0 && data.ready.length === 0 && (
        <Empty title="The kitchen is clear">
          No ticket is being made or waiting for pickup. Orders sent from the till show here as tickets.
        </Empty>
      )}
      {data && (data.inKitchen.length > 0 || data.ready.length > 0) && (
        <KitchenFigures load={data} timezone={props.timezone} now={props.now} />
      )}
    </Section>
  );
}

interface Lane {
  cameraId: string;
  name: string;
  status?: DriveThruStatus;
  error?: unknown;
}

async function loadLanes(locationId: string, signal: AbortSignal): Promise<Lane[]> {
  const lanes = (await loadCameras(locationId, signal)).filter(
    (c) => c.type === 'drive_thru_lane' && c.enabled,
  );
  return Promise.all(
    lanes.map((camera) =>
      api
        .data<DriveThruStatus>(
          `/v1/vision/drive-thru/status?location_id=${encodeURIComponent(locationId)}&camera_id=${encodeURIComponent(camera.id)}`,
          signal,
        )
        .then(
          (status): Lane => ({ cameraId: camera.id, name: camera.name, status }),
          (error: unknown): Lane => ({ cameraId: camera.id, name: camera.name, error }),
        ),
    ),
  );
}

const LANE_TONE: Record<DriveThruStatus['status'], Tone> = { normal: 'ok', busy: 'warn', critical: 'bad' };
const LANE_LABEL: Record<DriveThruStatus['status'], string> = {
  normal: 'Normal',
  busy: 'Busy',
  critical: 'Critical',
};

function laneProblem(error: unknown): string {
  if (error instanceof ApiError && error.status === 404)
    return 'No lane state yet: the store has not synced this lane.';
  const { message, requestId } = describeError(error);
  return requestId ? `${message} (request id ${requestId})` : message;
}

function LaneRow(props: { lane: Lane; now: number }) {
  const { lane } = props;
  const s = lane.status;
  if (!s)
    return (
      <tr>
        <th scope="row">{lane.name}</th>
        <td colSpan={4} class="muted">
          {laneProblem(lane.error)}
        </td>
      </tr>
    );
  return (
    <tr>
      <th scope="row">{lane.name}</th>
      <td class="num">{formatNumber(s.queue_length)}</td>
      <td class="num">{formatDuration(s.estimated_wait_seconds)}</td>
      <td class="num">{formatNumber(s.orders_per_hour, 1)}</td>
      <td>
        <Pill tone={s.stale ? 'neutral' : LANE_TONE[s.status]}>
          {s.stale ? 'Stale' : LANE_LABEL[s.status]}
        </Pill>{' '}
        <span class="muted small">updated {formatAgo(s.updated_at, props.now)}</span>
      </td>
    </tr>
  );
}

export function DriveThruSection(props: { locationId: string; refresh: number; now: number }) {
  const lanes = useResource(
    (signal) => loadLanes(props.locationId, signal),
    [props.locationId, props.refresh],
  );
  const { data, error, loading, reload } = lanes;
  return (
    <Section title="Drive-thru">
      {error !== undefined && (
        <ErrorNotice error={error} title="The drive-thru did not load" onRetry={reload} />
      )}
      {!data && loading && <Loading label="Loading the drive-thru…" />}
      {data && data.length === 0 && (
        <Empty title="No drive-thru lane">
          This store has no enabled drive-thru lane camera. Add one in the store's vision settings on its
          appliance and it shows here once synced.
        </Empty>
      )}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Lane</th>
                <th scope="col" class="num">
                  Cars
                </th>
                <th scope="col" class="num">
                  Wait
                </th>
                <th scope="col" class="num">
                  Orders / h
                </th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {data.map((lane) => (
                <LaneRow key={lane.cameraId} lane={lane} now={props.now} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
