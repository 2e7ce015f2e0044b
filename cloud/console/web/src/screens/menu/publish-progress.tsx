/**
 * Follows published changes until every store's appliance has pulled them: a bar that fills store
 * by store, and the stores still waiting with the reason (still being written, or the store has
 * not synced since; offline stores take it when they reconnect).
 */
import { ErrorNotice, Loading, ProgressBar, Section } from '../../components/ui.tsx';
import { formatAgo } from '../../format.ts';
import { useInterval, useLive, useNow, useResource } from '../../hooks.ts';
import { getPublication, getSyncStatus, type Publication, type PublicationStore, type Store } from './api.ts';
import type { Run } from './publish.ts';

const RANK: Record<PublicationStore['state'], number> = { queued: 0, pending: 1, applied: 2 };
const SHOWN_WAITING = 20;

/** A store has the change once it has pulled every publication of the run. */
export function aggregate(publications: Publication[]) {
  const byStore = new Map<string, PublicationStore['state']>();
  for (const publication of publications)
    for (const store of publication.stores) {
      const before = byStore.get(store.location_id);
      if (!before || RANK[store.state] < RANK[before]) byStore.set(store.location_id, store.state);
    }
  const total = Math.max(byStore.size, ...publications.map((p) => p.stores_total));
  const done = publications.every((p) => p.state === 'applied');
  const applied = done ? total : [...byStore.values()].filter((s) => s === 'applied').length;
  const waiting = [...byStore]
    .filter(([, state]) => state !== 'applied')
    .map(([id, state]) => ({ id, state }));
  return { total, applied, done, waiting };
}

export function PublishProgress(props: { runs: Run[]; stores: Store[]; onDismiss: () => void }) {
  const ids = props.runs.map((r) => r.id);
  const publications = useResource(
    (signal) => Promise.all(ids.map((id) => getPublication(id, signal))),
    [ids.join()],
  );
  const summary = publications.data ? aggregate(publications.data) : undefined;
  useLive(() => !summary?.done && publications.reload(), ['publication'], 2_000);
  const now = useNow(5_000);
  const started = publications.data?.[0]?.created_at;
  return (
    <Section
      title="Publishing to the stores"
      actions={
        <button type="button" class="btn small" onClick={props.onDismiss}>
          {summary?.done ? 'Dismiss' : 'Hide (publishing goes on)'}
        </button>
      }
    >
      <ul class="publish-runs small">
        {props.runs.map((run) => (
          <li key={run.id}>{run.label}</li>
        ))}
      </ul>
      {publications.error !== undefined && (
        <ErrorNotice
          error={publications.error}
          title="The progress could not be read"
          onRetry={publications.reload}
        />
      )}
      {!summary ? (
        <Loading label="Reading the progress…" />
      ) : (
        <>
          <div
            class="publish-progress"
            data-testid="publish-progress"
            data-done={summary.done ? 'true' : 'false'}
          >
            <ProgressBar
              label="Stores that have the change"
              value={summary.total === 0 ? 1 : summary.applied / summary.total}
              tone={summary.done ? 'ok' : undefined}
            />
            <p aria-live="polite">
              <strong>
                {summary.applied} of {summary.total} stores have it
              </strong>
              {summary.done && summary.total > 0 && ': every store sells with the change.'}
              {!summary.done && started && <span class="muted"> · started {formatAgo(started, now)}</span>}
            </p>
            {summary.total === 0 && (
              <p class="muted">
                The brand has no stores yet: the change stays in its menu and each new store gets it on its
                first sync.
              </p>
            )}
          </div>
          {!summary.done && summary.waiting.length > 0 && (
            <Waiting waiting={summary.waiting} stores={props.stores} />
          )}
        </>
      )}
    </Section>
  );
}

function Waiting(props: {
  waiting: Array<{ id: string; state: PublicationStore['state'] }>;
  stores: Store[];
}) {
  const shown = props.waiting.slice(0, SHOWN_WAITING);
  const pendingIds = shown.filter((w) => w.state === 'pending').map((w) => w.id);
  const statuses = useResource(
    (signal) =>
      Promise.all(pendingIds.map((id) => getSyncStatus(id, signal).catch(() => undefined))).then(
        (all) => new Map(all.flatMap((s) => (s ? [[s.location_id, s] as const] : []))),
      ),
    [pendingIds.join()],
  );
  useInterval(statuses.reload, 15_000);
  const names = new Map(props.stores.map((s) => [s.id, s.name]));
  return (
    <div class="table-wrap">
      <table class="table" data-testid="publish-waiting">
        <caption class="visually-hidden">Stores that do not have the change yet</caption>
        <thead>
          <tr>
            <th scope="col">Store still waiting</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((w) => (
            <tr key={w.id} data-testid="publish-waiting-store">
              <td>{names.get(w.id) ?? w.id}</td>
              <td>{whyWaiting(w.state, statuses.data?.get(w.id))}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.waiting.length > shown.length && (
        <p class="muted small">and {props.waiting.length - shown.length} more stores</p>
      )}
    </div>
  );
}

function whyWaiting(
  state: PublicationStore['state'],
  status: { online: boolean; last_seen_at: string | null } | undefined,
): string {
  if (state === 'queued') return 'The cloud is still writing the change for this store.';
  if (!status) return 'Written for the store; waiting for its appliance to pull it at its next sync.';
  if (status.online)
    return 'Online: its appliance takes the change at its next sync, normally within seconds.';
  const seen = status.last_seen_at ? `last heard from ${formatAgo(status.last_seen_at)}` : 'never connected';
  return `Offline (${seen}): it takes the change when it reconnects.`;
}
