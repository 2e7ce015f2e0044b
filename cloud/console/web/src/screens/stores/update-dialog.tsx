/**
 * "Update": a rollout of one release to this one store (docs/releases.md), in the store's night
 * window by default or at once, asked for with what the update does at the store.
 */
import { useState } from 'preact/hooks';
import { ConfirmDialog, ErrorNotice, Field, inputValue, Loading } from '../../components/ui.tsx';
import { formatDateTime } from '../../format.ts';
import { useResource } from '../../hooks.ts';
import { api } from '../../session.ts';
import type { Run } from './progress.tsx';
import type { Device, FleetStore, Paged, Release, Rollout } from './types.ts';

const NIGHT = { start: '02:00', end: '05:00' };
/** A window whose start equals its end is open all day. */
const ANY_TIME = { start: '00:00', end: '00:00' };

type When = 'night' | 'now';

async function startUpdate(store: FleetStore, appliance: Device, release: Release, when: When): Promise<Run> {
  const now = when === 'now';
  const answer = await api.post<{ data: Rollout }>('/v1/mdm/rollouts', {
    release_id: release.id,
    target: { location_ids: [store.location_id] },
    waves: [{ count: 1 }],
    soak_seconds: 0,
    window: now ? ANY_TIME : NIGHT,
    allow_open_hours: now,
    notes: `${store.name}: ${release.version}, started from the fleet console`,
  });
  return { kind: 'update', deviceId: appliance.id, rolloutId: answer.data.id, version: answer.data.version };
}

function ReleaseChoice(props: {
  releases: Release[];
  current: string | null;
  value: string;
  onChange: (id: string) => void;
}) {
  return (
    <Field label="Release" hint={`The appliance runs ${props.current ?? 'an unknown version'} now.`}>
      <select
        value={props.value}
        onChange={(event) => props.onChange(inputValue(event))}
        data-testid="update-release"
      >
        {props.releases.map((r) => (
          <option key={r.id} value={r.id}>
            {r.version}
            {r.version === props.current ? ' (installed)' : ''} · {formatDateTime(r.created_at)}
          </option>
        ))}
      </select>
    </Field>
  );
}

function WhenChoice(props: { value: When; onChange: (when: When) => void; timezone: string }) {
  return (
    <fieldset class="choice">
      <legend>When</legend>
      <label>
        <input
          type="radio"
          name="update-when"
          value="night"
          checked={props.value === 'night'}
          onChange={() => props.onChange('night')}
        />{' '}
        Tonight, {NIGHT.start}–{NIGHT.end} store time ({props.timezone}), while the store is closed
      </label>
      <label>
        <input
          type="radio"
          name="update-when"
          value="now"
          checked={props.value === 'now'}
          onChange={() => props.onChange('now')}
        />{' '}
        Now, as soon as the appliance is online, even while the store is open
      </label>
    </fieldset>
  );
}

export function UpdateDialog(props: {
  store: FleetStore;
  appliance: Device;
  onRun: (run: Run) => void;
  onClose: () => void;
}) {
  const { store, appliance } = props;
  const releases = useResource(
    (signal) =>
      api.get<Paged<Release>>('/v1/mdm/releases?state=available&limit=50', signal).then((p) => p.data),
    [],
  );
  const [chosen, setChosen] = useState<string | undefined>();
  const [when, setWhen] = useState<When>('night');
  const list = releases.data ?? [];
  const release = list.find((r) => r.id === chosen) ?? list[0];
  const current = appliance.firmware_version ?? store.appliance_version;
  const confirm = async () => {
    if (!release) throw new Error('There is no release to install: upload one on the Devices screen first.');
    props.onRun(await startUpdate(store, appliance, release, when));
  };
  return (
    <ConfirmDialog
      title={`Update the appliance at ${store.name}?`}
      confirmLabel={release ? `Update to ${release.version}` : 'Update'}
      onConfirm={confirm}
      onClose={props.onClose}
    >
      {releases.loading && !releases.data && <Loading label="Loading the releases…" />}
      {releases.error !== undefined && (
        <ErrorNotice error={releases.error} title="The releases did not load" onRetry={releases.reload} />
      )}
      {releases.data && list.length === 0 && (
        <p class="notice info">
          No release is available. Upload one on the Devices screen, then update from here.
        </p>
      )}
      {release && <ReleaseChoice releases={list} current={current} value={release.id} onChange={setChosen} />}
      <WhenChoice value={when} onChange={setWhen} timezone={store.timezone} />
      <p>
        The appliance downloads {release?.version ?? 'the release'} in the background, then installs it and
        restarts into it: the POS and kitchen screens pause for about a minute; orders taken offline are kept.
        If the new version fails its health check, the appliance goes back to{' '}
        {current ?? 'its current version'} by itself.
      </p>
      {release?.notes && <p class="muted small">Release notes: {release.notes}</p>}
    </ConfirmDialog>
  );
}
