/**
 * Following a fleet command to its end by polling what the API shows of it: the store's sync
 * status for "Sync now", the appliance's presence for "Restart" (the API has no state for a restart
 * command), and the rollout's store and the device's update for "Update".
 */
import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';
import { ErrorNotice, ProgressBar, type Tone } from '../../components/ui.tsx';
import { formatAgo, formatNumber, formatPercent } from '../../format.ts';
import { useInterval, useResource } from '../../hooks.ts';
import { api } from '../../session.ts';
import { loadSyncStatus } from './data.ts';
import type { Device, Rollout, RolloutStore, SyncStatus, UpdateStatus } from './types.ts';

export type Run =
  | { kind: 'sync'; requestedAt: string; baseline: number }
  | { kind: 'restart'; deviceId: string; startedAt: number }
  | { kind: 'update'; deviceId: string; rolloutId: string | null; version: string | null };

interface View {
  label: string;
  detail?: ComponentChildren;
  value: number | null;
  tone?: Tone;
  done: boolean;
}

const POLL_MS = 2000;
const WHEN_CLOSED = 'It installs only while the store is closed by the opening hours it syncs.';
const SYNC_GIVE_UP_MS = 3 * 60_000;
const RESTART_GIVE_UP_MS = 10 * 60_000;
const RESTART_UNSEEN_MS = 90_000;

/** Reloads every POLL_MS until the view it feeds says it is done. */
function usePoll<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]) {
  const resource = useResource(load, deps);
  const done = useRef(false);
  useInterval(() => !done.current && resource.reload(), POLL_MS);
  return { ...resource, done };
}

function Frame(props: {
  title: string;
  view: View;
  error: unknown;
  onClose: () => void;
  children?: ComponentChildren;
}) {
  const { view } = props;
  return (
    <div class="command-progress" data-testid="command-progress" data-done={view.done ? 'true' : 'false'}>
      <div class="command-progress-head">
        <strong>{props.title}</strong>
        <span role="status" aria-live="polite">
          {view.label}
        </span>
      </div>
      <ProgressBar label={`${props.title}: ${view.label}`} value={view.value} tone={view.tone} />
      {view.detail && <p class="muted small">{view.detail}</p>}
      {props.error !== undefined && (
        <ErrorNotice error={props.error} title="The progress could not be read" />
      )}
      <div class="command-progress-actions">
        {props.children}
        {view.done && (
          <button type="button" class="btn small" onClick={props.onClose}>
            Dismiss
          </button>
        )}
      </div>
    </div>
  );
}

function syncView(run: Extract<Run, { kind: 'sync' }>, s: SyncStatus | undefined, now: number): View {
  if (!s) return { label: 'Asking the appliance to sync…', value: null, done: false };
  const left = s.queue_depth + s.pending_down;
  const synced = [s.last_pull_at, s.last_push_at].some((at) => at !== null && at >= run.requestedAt);
  const base = Math.max(run.baseline, left);
  const value = base === 0 ? null : 1 - left / base;
  const detail = `${formatNumber(s.queue_depth)} changes to send, ${formatNumber(s.pending_down)} to receive; last pull ${formatAgo(s.last_pull_at, now)}.`;
  if (left === 0 && synced && !s.trigger_pending)
    return { label: 'Up to date', value: 1, tone: 'ok', done: true, detail };
  if (now - Date.parse(run.requestedAt) > SYNC_GIVE_UP_MS)
    return {
      label: s.online ? 'Not finished yet' : 'The appliance is offline',
      value,
      tone: 'bad',
      done: true,
      detail: `${detail} It syncs as soon as it can; this page keeps showing its queue above.`,
    };
  if (s.trigger_pending)
    return {
      label: s.online
        ? 'Waiting for the appliance to pick it up'
        : 'Waiting for the appliance to come online',
      value,
      done: false,
      detail,
    };
  return { label: `Syncing: ${formatNumber(left)} changes left`, value, done: false, detail };
}

export function SyncProgress(props: {
  locationId: string;
  run: Extract<Run, { kind: 'sync' }>;
  onClose: () => void;
}) {
  const status = usePoll((signal) => loadSyncStatus(props.locationId, signal), [props.locationId]);
  const view = syncView(props.run, status.data, Date.now());
  status.done.current = view.done;
  return <Frame title="Sync now" view={view} error={status.error} onClose={props.onClose} />;
}

function restartView(device: Device | undefined, sawOffline: boolean, elapsed: number): View {
  if (!device) return { label: 'Restart queued', value: null, done: false };
  if (sawOffline && device.state === 'online')
    return {
      label: 'Back online',
      value: 1,
      tone: 'ok',
      done: true,
      detail: 'The appliance restarted and reconnected.',
    };
  if (elapsed > RESTART_GIVE_UP_MS)
    return {
      label: 'Not back yet',
      value: null,
      tone: 'bad',
      done: true,
      detail: 'The appliance has not come back within 10 minutes. Check its power and network at the store.',
    };
  if (sawOffline) return { label: 'Restarting: waiting for it to come back', value: 0.5, done: false };
  if (elapsed > RESTART_UNSEEN_MS && device.state === 'online')
    return {
      label: 'Online',
      value: 1,
      tone: 'warn',
      done: true,
      detail:
        'The console did not see the appliance go down: it restarted between two looks, or has not taken the command yet.',
    };
  return {
    label:
      device.state === 'offline'
        ? 'Offline: the restart waits for it'
        : 'Restart sent: waiting for the appliance to go down',
    value: 0.15,
    done: false,
  };
}

export function RestartProgress(props: { run: Extract<Run, { kind: 'restart' }>; onClose: () => void }) {
  const sawOffline = useRef(false);
  const device = usePoll(
    (signal) => api.data<Device>(`/v1/mdm/devices/${encodeURIComponent(props.run.deviceId)}`, signal),
    [props.run.deviceId],
  );
  if (device.data?.state === 'offline') sawOffline.current = true;
  const view = restartView(device.data, sawOffline.current, Date.now() - props.run.startedAt);
  device.done.current = view.done;
  return <Frame title="Restart" view={view} error={device.error} onClose={props.onClose} />;
}

interface UpdateState {
  update: UpdateStatus | undefined;
  rollout: Rollout | undefined;
  store: RolloutStore | undefined;
}

async function loadUpdate(run: Extract<Run, { kind: 'update' }>, signal: AbortSignal): Promise<UpdateState> {
  const device = encodeURIComponent(run.deviceId);
  const rollout = run.rolloutId ? encodeURIComponent(run.rolloutId) : undefined;
  const [update, summary, stores] = await Promise.all([
    api.data<UpdateStatus>(`/v1/mdm/devices/${device}/updates/status`, signal).catch(() => undefined),
    rollout ? api.data<Rollout>(`/v1/mdm/rollouts/${rollout}`, signal) : undefined,
    rollout ? api.data<RolloutStore[]>(`/v1/mdm/rollouts/${rollout}/stores?limit=1`, signal) : undefined,
  ]);
  // An earlier update of the device (another rollout's) says nothing about this one.
  const ours = update && (!run.rolloutId || update.rollout_id === run.rolloutId) ? update : undefined;
  return { update: ours, rollout: summary, store: stores?.[0] };
}

/** The download's share: the rollout's figure, else the one the appliance last reported. */
function downloaded(state: UpdateState): number | null {
  if (state.store) return state.store.progress;
  const reported = state.update?.result?.progress;
  return typeof reported === 'number' ? reported : null;
}

function updateView(run: Extract<Run, { kind: 'update' }>, state: UpdateState | undefined): View {
  const to = run.version ?? state?.update?.version ?? 'the new version';
  if (!state) return { label: 'Starting the update…', value: null, done: false };
  const store = state.store;
  const reason = store?.reason ?? (state.update?.result?.reason as string | undefined) ?? null;
  const progress = downloaded(state);
  const end = (label: string, tone: Tone, value: number | null = 1): View => ({
    label,
    value,
    tone,
    done: true,
    detail: reason ?? undefined,
  });
  if (store?.state === 'healthy' || (!store && state.update?.state === 'succeeded'))
    return end(`Updated to ${to}`, 'ok');
  if (store?.state === 'rolled_back')
    return end('Rolled back: the new version failed its check', 'bad', progress);
  if (store?.state === 'failed' || state.update?.state === 'failed')
    return end('The update failed', 'bad', progress);
  if (store?.state === 'cancelled' || store?.state === 'excluded' || state.update?.state === 'cancelled')
    return end('The update was cancelled', 'neutral', progress);
  if (state.rollout?.state === 'halted' || state.rollout?.state === 'aborted')
    return end(`The rollout ${state.rollout.state}`, 'bad', progress);
  if (state.rollout?.state === 'paused')
    return { label: 'Paused: the rollout was paused on the Devices screen', value: progress, done: false };
  if (store?.state === 'installing')
    return { label: 'Installing; the appliance restarts into it', value: 1, done: false };
  if (store?.state === 'downloading' || state.update?.state === 'acknowledged')
    return { label: `Downloading ${to}: ${formatPercent(progress ?? 0, 0)}`, value: progress, done: false };
  const window = state.rollout?.window;
  const label =
    window && window.start !== window.end
      ? `Waiting for the store's window (${window.start}–${window.end} store time) with the appliance online`
      : 'Waiting for the appliance to take it';
  return {
    label,
    value: null,
    done: false,
    detail: state.rollout?.allow_open_hours ? undefined : WHEN_CLOSED,
  };
}

export function UpdateProgress(props: {
  run: Extract<Run, { kind: 'update' }>;
  onClose: () => void;
  onCancel: () => void;
}) {
  const state = usePoll((signal) => loadUpdate(props.run, signal), [props.run.deviceId, props.run.rolloutId]);
  const view = updateView(props.run, state.data);
  state.done.current = view.done;
  return (
    <Frame
      title={`Update to ${props.run.version ?? 'a new version'}`}
      view={view}
      error={state.error}
      onClose={props.onClose}
    >
      {!view.done && (
        <button type="button" class="btn small" onClick={props.onCancel}>
          Cancel the update
        </button>
      )}
    </Frame>
  );
}
