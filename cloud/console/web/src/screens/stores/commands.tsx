/**
 * The store's fleet commands: sync now, restart the appliance, update it. Each asks first, saying
 * what will happen at the store, then shows its progress until it ends.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import { ConfirmDialog, Section } from '../../components/ui.tsx';
import { formatNumber } from '../../format.ts';
import { useResource } from '../../hooks.ts';
import { api } from '../../session.ts';
import { loadSyncStatus } from './data.ts';
import { RestartProgress, type Run, SyncProgress, UpdateProgress } from './progress.tsx';
import type { Device, DeviceCommand, FleetStore, UpdateStatus } from './types.ts';
import { UpdateDialog } from './update-dialog.tsx';

type Asking = 'sync' | 'restart' | 'update' | 'cancel-update' | null;
const ACTIVE_UPDATE: ReadonlyArray<UpdateStatus['state']> = ['queued', 'sent', 'acknowledged'];

async function startSync(locationId: string): Promise<Run> {
  const before = await loadSyncStatus(locationId);
  const answer = await api.post<{ data: { requested_at: string } }>('/v1/sync/trigger', {
    location_id: locationId,
    priority: 'high',
  });
  return {
    kind: 'sync',
    requestedAt: answer.data.requested_at,
    baseline: before.queue_depth + before.pending_down,
  };
}

async function startRestart(deviceId: string): Promise<Run> {
  await api.post<{ data: DeviceCommand }>(`/v1/mdm/devices/${encodeURIComponent(deviceId)}/restart`);
  return { kind: 'restart', deviceId, startedAt: Date.now() };
}

/** An update already under way when the page opens is followed like one started here. */
function useUpdateUnderWay(appliance: Device | undefined) {
  const id = appliance?.id;
  return useResource(
    async (signal) => {
      if (!id) return undefined;
      try {
        return await api.data<UpdateStatus>(
          `/v1/mdm/devices/${encodeURIComponent(id)}/updates/status`,
          signal,
        );
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      }
    },
    [id],
  );
}

function SyncDialog(props: { store: FleetStore; onRun: (run: Run) => void; onClose: () => void }) {
  const { store } = props;
  return (
    <ConfirmDialog
      title={`Sync ${store.name} now?`}
      confirmLabel="Sync now"
      onConfirm={async () => props.onRun(await startSync(store.location_id))}
      onClose={props.onClose}
    >
      <p>
        The appliance sends the {formatNumber(store.queue_depth ?? 0)} changes waiting on it and takes every
        change the cloud holds for the store at once, instead of at its next turn. Service carries on: tills
        and kitchen screens do not pause.
      </p>
      {!store.online && (
        <p class="notice info">The appliance is offline now: it syncs as soon as it is back online.</p>
      )}
    </ConfirmDialog>
  );
}

function RestartDialog(props: {
  store: FleetStore;
  appliance: Device;
  onRun: (run: Run) => void;
  onClose: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Restart the appliance at ${props.store.name}?`}
      confirmLabel="Restart the appliance"
      danger
      onConfirm={async () => props.onRun(await startRestart(props.appliance.id))}
      onClose={props.onClose}
    >
      <p>
        The appliance ({props.appliance.name}) restarts: the POS and kitchen screens pause for about 30
        seconds; orders taken offline are kept and sync once it is back.
      </p>
      {!props.store.online && (
        <p class="notice info">
          The appliance is offline now: the restart waits and runs when it reconnects.
        </p>
      )}
    </ConfirmDialog>
  );
}

function CancelUpdateDialog(props: {
  store: FleetStore;
  deviceId: string;
  onDone: () => void;
  onClose: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Cancel the update at ${props.store.name}?`}
      confirmLabel="Cancel the update"
      danger
      onConfirm={() => api.post(`/v1/mdm/devices/${encodeURIComponent(props.deviceId)}/updates/cancel`)}
      onClose={(done) => (done ? props.onDone() : props.onClose())}
    >
      <p>
        An update not yet sent is never sent. One the appliance is downloading or installing stops and the
        appliance goes back to the version it runs now; if it already finished, it stays on the new version.
      </p>
    </ConfirmDialog>
  );
}

function ProgressOf(props: { run: Run; locationId: string; onClose: () => void; onCancel: () => void }) {
  const { run } = props;
  if (run.kind === 'sync')
    return <SyncProgress locationId={props.locationId} run={run} onClose={props.onClose} />;
  if (run.kind === 'restart') return <RestartProgress run={run} onClose={props.onClose} />;
  return <UpdateProgress run={run} onClose={props.onClose} onCancel={props.onCancel} />;
}

export function CommandsSection(props: {
  store: FleetStore;
  appliance: Device | undefined;
  devicesLoaded: boolean;
  onChanged: () => void;
}) {
  const { store, appliance } = props;
  const [asking, setAsking] = useState<Asking>(null);
  const [run, setRun] = useState<Run | null>(null);
  const underWay = useUpdateUnderWay(appliance);
  useEffect(() => {
    const u = underWay.data;
    if (u && !run && ACTIVE_UPDATE.includes(u.state))
      setRun({ kind: 'update', deviceId: u.device_id, rolloutId: u.rollout_id, version: u.version });
  }, [underWay.data]);
  const started = (next: Run) => {
    setRun(next);
    props.onChanged();
  };
  const noAppliance = props.devicesLoaded && !appliance;
  return (
    <Section title="Fleet commands">
      <div class="toolbar">
        <button type="button" class="btn" data-testid="command-sync" onClick={() => setAsking('sync')}>
          Sync now
        </button>
        <button
          type="button"
          class="btn"
          data-testid="command-restart"
          disabled={!appliance}
          onClick={() => setAsking('restart')}
        >
          Restart
        </button>
        <button
          type="button"
          class="btn"
          data-testid="command-update"
          disabled={!appliance}
          onClick={() => setAsking('update')}
        >
          Update
        </button>
      </div>
      {noAppliance && (
        <p class="muted small">
          Restart and Update need the store's enrolled appliance, and it has none yet: register it on the
          Devices screen and start it with its enrolment token.
        </p>
      )}
      {run && (
        <ProgressOf
          run={run}
          locationId={store.location_id}
          onClose={() => {
            setRun(null);
            props.onChanged();
          }}
          onCancel={() => setAsking('cancel-update')}
        />
      )}
      {asking === 'sync' && <SyncDialog store={store} onRun={started} onClose={() => setAsking(null)} />}
      {asking === 'restart' && appliance && (
        <RestartDialog store={store} appliance={appliance} onRun={started} onClose={() => setAsking(null)} />
      )}
      {asking === 'update' && appliance && (
        <UpdateDialog store={store} appliance={appliance} onRun={started} onClose={() => setAsking(null)} />
      )}
      {asking === 'cancel-update' && run?.kind === 'update' && (
        <CancelUpdateDialog
          store={store}
          deviceId={run.deviceId}
          onDone={() => setAsking(null)}
          onClose={() => setAsking(null)}
        />
      )}
    </Section>
  );
}
