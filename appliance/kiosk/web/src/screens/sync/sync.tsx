/**
 * Sync with the cloud: online or not, what is waiting to go up and for how long, the last round,
 * conflicts. "Sync now" runs a round; its bar is the queue draining (the status re-read each
 * second while the round runs, besides the feed's sync topic).
 */
import { useEffect, useState } from 'preact/hooks';
import { ProgressBar } from '../../components/progress.tsx';
import { useNow } from '../../hooks.ts';
import { formatDuration, formatRelative, secondsSince } from '../../lib/format.ts';
import { drainProgress } from '../../lib/progress.ts';
import { api } from '../../session.ts';
import { type Session, setTopic, useStore } from '../../store.ts';
import type { SyncStatus } from '../../types.ts';

type Run =
  | { phase: 'idle' }
  | { phase: 'running'; startDepth: number }
  | { phase: 'done'; ok: boolean; message: string };

function SyncNow(props: { status: SyncStatus }) {
  const [run, setRun] = useState<Run>({ phase: 'idle' });

  useEffect(() => {
    if (run.phase !== 'running') return;
    const timer = setInterval(
      () =>
        api
          .get<SyncStatus>('/v1/sync/status')
          .then((s) => setTopic('sync', s))
          .catch(() => undefined),
      1000,
    );
    return () => clearInterval(timer);
  }, [run.phase]);

  const start = async () => {
    setRun({ phase: 'running', startDepth: props.status.queue_depth });
    try {
      const after = await api.post<SyncStatus>('/v1/sync/now');
      setTopic('sync', after);
      setRun(
        after.online
          ? { phase: 'done', ok: true, message: `Synced; ${after.queue_depth} change(s) still waiting.` }
          : {
              phase: 'done',
              ok: false,
              message: `The cloud could not be reached${after.last_error ? `: ${after.last_error}` : ''}.`,
            },
      );
    } catch (e) {
      setRun({ phase: 'done', ok: false, message: (e as Error).message });
    }
  };

  return (
    <section class="panel sync-now" aria-label="Sync now">
      <button
        type="button"
        class="btn primary big"
        data-testid="sync-now"
        disabled={run.phase === 'running'}
        onClick={start}
      >
        {run.phase === 'running' ? 'Syncing…' : 'Sync now'}
      </button>
      {run.phase === 'running' && (
        <ProgressBar
          label="Sync progress"
          pct={run.startDepth > 0 ? drainProgress(run.startDepth, props.status.queue_depth) : null}
        />
      )}
      {run.phase === 'done' && (
        <p class={run.ok ? 'ok-text' : 'error-text'} role="status" data-testid="sync-result">
          {run.message}
        </p>
      )}
    </section>
  );
}

export function SyncScreen(props: { session: Session }) {
  const now = useNow(1000);
  const status = useStore((s) => s.topics.sync);
  if (!status) return <p class="muted">Reading sync status…</p>;
  const oldestAge = status.oldest_pending_at ? secondsSince(status.oldest_pending_at, now) : 0;
  return (
    <div class="sync-screen">
      <div class="figures">
        <div class={`figure-card ${status.online ? 'good' : 'bad'}`}>
          <span class="figure-label">Cloud</span>
          <span class="figure" data-testid="sync-online">
            {!status.configured ? 'not set up' : status.online ? 'online' : 'offline'}
          </span>
        </div>
        <div class="figure-card">
          <span class="figure-label">Waiting to send</span>
          <span class="figure" data-testid="sync-queue">
            {status.queue_depth}
          </span>
          <span class="muted">
            {status.queue_depth > 0 ? `oldest ${formatDuration(oldestAge)} ago` : 'nothing waiting'}
          </span>
        </div>
        <div class="figure-card">
          <span class="figure-label">Last sync</span>
          <span class="figure">{formatRelative(status.last_success_at, now)}</span>
          <span class="muted">
            up {formatRelative(status.last_push_at, now)} · down {formatRelative(status.last_pull_at, now)}
          </span>
        </div>
        <div class={`figure-card ${status.conflicts > 0 ? 'warn' : ''}`}>
          <span class="figure-label">Conflicts</span>
          <span class="figure">{status.conflicts}</span>
          <span class="muted">settled by the cloud · {status.rejected} rejected</span>
        </div>
      </div>
      {status.last_error && (
        <p class="error-text" data-testid="sync-error">
          Last error: {status.last_error}
        </p>
      )}
      {props.session.manager && <SyncNow status={status} />}
    </div>
  );
}
