/** Pause, resume, retry and abort a rollout, each saying first what it does at the stores. */
import { ConfirmDialog } from '../../components/ui.tsx';
import { formatNumber } from '../../format.ts';
import { api } from '../../session.ts';
import type { Rollout } from './types.ts';

export type RolloutAction = 'pause' | 'resume' | 'retry' | 'abort';

const retriable = (r: Rollout) => r.counts.failed + r.counts.rolled_back + r.counts.cancelled;
const inFlight = (r: Rollout) => r.counts.downloading + r.counts.installing;
const unfinished = (r: Rollout) => r.counts.queued + r.counts.scheduled + inFlight(r);
export const actionsFor = (rollout: Rollout): RolloutAction[] => {
  if (rollout.state === 'running') return ['pause', 'abort'];
  if (rollout.state === 'halted' && retriable(rollout) > 0) return ['retry', 'resume', 'abort'];
  if (rollout.state === 'paused' || rollout.state === 'halted') return ['resume', 'abort'];
  return [];
};

const stores = (n: number) => `${formatNumber(n)} ${n === 1 ? 'store' : 'stores'}`;
const windowText = (r: Rollout) =>
  `between ${r.window.start} and ${r.window.end} in each store's own time${r.allow_open_hours ? '' : ', while the store is closed'}`;

function PauseText({ rollout }: { rollout: Rollout }) {
  return (
    <p>
      No store is sent anything new. The {stores(inFlight(rollout))} already downloading or installing{' '}
      {rollout.version} carry on and are followed. {stores(rollout.counts.queued + rollout.counts.scheduled)}{' '}
      wait until you resume.
    </p>
  );
}

function ResumeText({ rollout }: { rollout: Rollout }) {
  return (
    <>
      <p>
        The {stores(unfinished(rollout))} still waiting for {rollout.version} are sent it again, wave by wave,{' '}
        {windowText(rollout)}, when their appliance is online. Each store's appliance checks the new version
        on a copy of its data before switching, and goes back by itself if the check fails.
      </p>
      {rollout.state === 'halted' && (
        <p class="notice bad">
          This rollout halted{rollout.halted_reason ? `: ${rollout.halted_reason}` : ''}. It resumes only once
          its current wave's failures are back under the threshold: exclude or retry the failed stores first.
        </p>
      )}
    </>
  );
}

function RetryText({ rollout }: { rollout: Rollout }) {
  return (
    <p>
      The {stores(retriable(rollout))} whose update failed, rolled back or was cancelled are sent{' '}
      {rollout.version} again, {windowText(rollout)}. A store whose check fails again rolls back by itself and
      keeps selling on its current version.
    </p>
  );
}

function AbortText({ rollout }: { rollout: Rollout }) {
  return (
    <p>
      <strong>This cannot be undone.</strong> The {stores(unfinished(rollout))} that have not finished are
      cancelled with their update: those downloading or installing stop and stay on the version they run. The{' '}
      {stores(rollout.counts.healthy)} already on {rollout.version} keep it. To go on later, start a new
      rollout.
    </p>
  );
}

const TITLES: Record<RolloutAction, { title: (v: string) => string; confirm: string }> = {
  pause: { title: (v) => `Pause the rollout of ${v}?`, confirm: 'Pause the rollout' },
  resume: { title: (v) => `Resume the rollout of ${v}?`, confirm: 'Resume the rollout' },
  retry: { title: (v) => `Send ${v} again to the failed stores?`, confirm: 'Retry the failed stores' },
  abort: { title: (v) => `Abort the rollout of ${v}?`, confirm: 'Abort the rollout' },
};

export function RolloutActionDialog(props: {
  rollout: Rollout;
  action: RolloutAction;
  onClose: (done: boolean) => void;
}) {
  const { rollout, action } = props;
  const text = TITLES[action];
  return (
    <ConfirmDialog
      title={text.title(rollout.version)}
      confirmLabel={text.confirm}
      danger={action === 'abort'}
      onConfirm={() => api.post(`/v1/mdm/rollouts/${encodeURIComponent(rollout.id)}/${action}`)}
      onClose={props.onClose}
    >
      {action === 'pause' && <PauseText rollout={rollout} />}
      {action === 'resume' && <ResumeText rollout={rollout} />}
      {action === 'retry' && <RetryText rollout={rollout} />}
      {action === 'abort' && <AbortText rollout={rollout} />}
    </ConfirmDialog>
  );
}
