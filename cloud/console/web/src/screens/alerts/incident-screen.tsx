/** One incident: what and where, its state with acknowledge / resolve, its timeline and its channel. */
import { useMemo, useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import {
  ConfirmDialog,
  Empty,
  ErrorNotice,
  Field,
  inputValue,
  Loading,
  Page,
  Pill,
  Section,
  Stat,
} from '../../components/ui.tsx';
import { formatAgo, formatDateTime } from '../../format.ts';
import { useLive, useNow, useResource } from '../../hooks.ts';
import { href } from '../../router.ts';
import { api, useUser } from '../../session.ts';
import { IncidentChannel } from './incident-channel.tsx';
import { IncidentTimeline, loadTimeline } from './incident-timeline.tsx';
import { type StoreRef, useStores } from './locations.ts';
import { capitalize, INCIDENT_SEVERITY_TONE, INCIDENT_STATUS_TONE, type Incident } from './types.ts';

const LIVE_FRAMES = ['incident', 'alert', 'alert.notification'];

export function IncidentScreen(props: { params: Record<string, string> }) {
  const id = props.params.id ?? '';
  const incident = useResource((signal) => api.data<Incident>(`/api/v1/incidents/${id}`, signal), [id]);
  const timeline = useResource((signal) => loadTimeline(id, signal), [id]);
  const reloadAll = () => {
    incident.reload();
    timeline.reload();
  };
  useLive(reloadAll, LIVE_FRAMES, 5_000);
  const stores = useStores();
  const user = useUser();
  const data = incident.data;
  const names = useMemo(() => {
    const map = new Map<string, string>();
    for (const r of data?.responders ?? []) if (r.user_id) map.set(r.user_id, r.name);
    if (user) map.set(user.id, 'You');
    return map;
  }, [data, user]);

  if (incident.error instanceof ApiError && incident.error.status === 404)
    return (
      <Page title="Incident not found">
        <div data-testid="incident-page">
          <Empty
            title="There is no such incident"
            action={<a href={href('/alerts?tab=incidents')}>See every incident</a>}
          >
            It may belong to another organisation, or the link is wrong.
          </Empty>
        </div>
      </Page>
    );
  const store = stores.get(data?.location_id ?? '');
  return (
    <Page
      title={data?.title ?? 'Incident'}
      subtitle={<a href={href('/alerts?tab=incidents')}>← All incidents</a>}
      actions={data && <IncidentActions incident={data} onChanged={reloadAll} />}
    >
      <div data-testid="incident-page" data-incident-status={data?.status}>
        {incident.error !== undefined && (
          <ErrorNotice error={incident.error} onRetry={incident.reload} title="The incident did not load" />
        )}
        {!data && incident.loading && <Loading label="Loading the incident…" />}
        {data && <Summary incident={data} store={store} names={names} />}
        {data && (
          <div class="grid-2 incident-columns">
            <IncidentTimeline incidentId={id} timeline={timeline} names={names} timeZone={store?.timezone} />
            <IncidentChannel channelId={data.channel_id} names={names} timeZone={store?.timezone} />
          </div>
        )}
      </div>
    </Page>
  );
}

function Summary(props: { incident: Incident; store: StoreRef | undefined; names: Map<string, string> }) {
  const { incident, store } = props;
  const who = (id: string | null, fallback: string) => (id ? (props.names.get(id) ?? id) : fallback);
  const now = useNow(30_000);
  const tz = store?.timezone;
  return (
    <>
      <div class="stats">
        <Stat
          label="Status"
          value={<Pill tone={INCIDENT_STATUS_TONE[incident.status]}>{capitalize(incident.status)}</Pill>}
          testId="incident-status"
        />
        <Stat
          label="Severity"
          value={
            <Pill tone={INCIDENT_SEVERITY_TONE[incident.severity]}>{capitalize(incident.severity)}</Pill>
          }
        />
        <Stat label="Started" value={formatDateTime(incident.started_at, tz)} />
        <Stat label="Last activity" value={formatAgo(incident.last_activity_at, now)} />
        <Stat label="Occurrences" value={incident.occurrences} />
      </div>
      <Section title="Details">
        <dl class="facts">
          <dt>Store</dt>
          <dd>
            {store ? `${store.name} (${store.timezone})` : (incident.location_id ?? 'Not tied to a store')}
          </dd>
          <dt>Service</dt>
          <dd>{incident.service ?? '—'}</dd>
          <dt>Opened by</dt>
          <dd>
            {incident.source === 'alert'
              ? 'A firing alert'
              : incident.source === 'event'
                ? 'A store event'
                : 'The API'}
          </dd>
          {incident.device_id && (
            <>
              <dt>Device</dt>
              <dd>
                <code>{incident.device_id}</code>
              </dd>
            </>
          )}
          <dt>Runbook</dt>
          <dd>
            {incident.runbook_url ? (
              <a href={incident.runbook_url} target="_blank" rel="noreferrer">
                {incident.runbook_url}
              </a>
            ) : (
              'None attached'
            )}
          </dd>
          {incident.acknowledged_at && (
            <>
              <dt>Acknowledged</dt>
              <dd>
                {formatDateTime(incident.acknowledged_at, tz)} by {who(incident.acknowledged_by, 'someone')}
              </dd>
            </>
          )}
          {incident.resolved_at && (
            <>
              <dt>Resolved</dt>
              <dd>
                {formatDateTime(incident.resolved_at, tz)} by {who(incident.resolved_by, 'the system')}
              </dd>
            </>
          )}
          <dt>Responders</dt>
          <dd>
            {incident.responders.length === 0
              ? 'None listed'
              : incident.responders
                  .map((r) => `${r.name}${r.invited ? '' : ' (notified, not in the channel)'}`)
                  .join(', ')}
          </dd>
        </dl>
        {incident.description && <p class="incident-description">{incident.description}</p>}
      </Section>
    </>
  );
}

type Transition = 'acknowledge' | 'resolve';

function IncidentActions(props: { incident: Incident; onChanged: () => void }) {
  const [asking, setAsking] = useState<Transition | null>(null);
  const [note, setNote] = useState('');
  const { incident } = props;
  const run = () =>
    api.post(`/api/v1/incidents/${incident.id}/${asking}`, note.trim() ? { note: note.trim() } : {});
  const close = (done: boolean) => {
    setAsking(null);
    setNote('');
    if (done) props.onChanged();
  };
  return (
    <>
      {incident.status === 'open' && (
        <button
          type="button"
          class="btn primary"
          data-testid="acknowledge"
          onClick={() => setAsking('acknowledge')}
        >
          Acknowledge
        </button>
      )}
      {incident.status !== 'resolved' && (
        <button type="button" class="btn" data-testid="resolve" onClick={() => setAsking('resolve')}>
          Resolve
        </button>
      )}
      {asking && (
        <ConfirmDialog
          title={asking === 'acknowledge' ? 'Acknowledge this incident?' : 'Resolve this incident?'}
          confirmLabel={asking === 'acknowledge' ? 'Acknowledge' : 'Resolve'}
          onConfirm={run}
          onClose={close}
        >
          <p>
            {asking === 'acknowledge'
              ? 'Responders see that someone is on it; the channel is told.'
              : 'Resolving is final: the channel is told, and the next alert of this kind opens a new incident.'}
          </p>
          <Field label="Note (optional)" hint="Goes on the timeline.">
            <textarea
              rows={2}
              maxLength={2000}
              value={note}
              onInput={(event) => setNote(inputValue(event))}
            />
          </Field>
        </ConfirmDialog>
      )}
    </>
  );
}
