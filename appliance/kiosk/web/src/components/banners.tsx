import { useState } from 'preact/hooks';
import { describeItems, type Mismatch } from '../lib/mismatch.ts';
import { acknowledge } from '../mismatches.ts';
import { api } from '../session.ts';
import { useStore } from '../store.ts';
import { ProgressBar } from './progress.tsx';

/** While the cloud is unreachable; the store keeps selling and catches up later. */
export function OfflineBanner() {
  const offline = useStore((s) => s.topics.sync?.configured === true && !s.topics.sync.online);
  if (!offline) return null;
  return (
    <div class="banner offline" role="alert" data-testid="offline-banner">
      <strong>Offline: cloud unreachable.</strong> Sales continue and will sync when the connection returns.
    </div>
  );
}

/** The kiosk itself lost its line to the appliance's feed (live figures may be a little behind). */
export function FeedBanner() {
  const feed = useStore((s) => s.feed);
  if (feed !== 'retrying') return null;
  return (
    <div class="banner warn" role="status" aria-live="polite" data-testid="feed-banner">
      Live updates interrupted; reconnecting…
    </div>
  );
}

/**
 * Dismissing only acknowledges locally: "I have seen it" says nothing about whether the camera was
 * right, and a hurried tap to stop the beeping must not count as a review, which feeds the camera's
 * detection accuracy and its alerts. Reviewing is a separate, deliberate answer (the two buttons
 * beside it, also on the Verification screen); it acknowledges too. Signed out, only dismiss shows.
 */
function MismatchRow(props: { mismatch: Mismatch; orderLabel: string; canReview: boolean }) {
  const { mismatch } = props;
  const [error, setError] = useState<string>();
  const review = async (correct: boolean) => {
    try {
      await api.post(`/api/vision/verifications/${encodeURIComponent(mismatch.verificationId)}/review`, {
        correct,
      });
      acknowledge(mismatch);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div class="mismatch-row">
      <div class="mismatch-text">
        <strong>Order {props.orderLabel} does not match.</strong>
        {mismatch.missing.length > 0 && <span> Missing: {describeItems(mismatch.missing)}.</span>}
        {mismatch.extra.length > 0 && <span> Extra: {describeItems(mismatch.extra)}.</span>}
        {error && <span class="error-text"> {error}</span>}
      </div>
      <div class="mismatch-actions">
        {props.canReview && (
          <>
            <button type="button" class="btn" onClick={() => review(true)}>
              Camera right, fixed
            </button>
            <button type="button" class="btn" onClick={() => review(false)}>
              False alarm
            </button>
          </>
        )}
        <button
          type="button"
          class="btn primary"
          data-testid="mismatch-dismiss"
          aria-label={`Dismiss the mismatch of order ${props.orderLabel}`}
          onClick={() => acknowledge(mismatch)}
        >
          Dismiss
        </button>
      </div>
    </div>
  );
}

export function MismatchBanner() {
  const mismatches = useStore((s) => s.mismatches);
  const numbers = useStore((s) => s.orderNumbers);
  const signedIn = useStore((s) => s.session !== null);
  if (mismatches.length === 0) return null;
  return (
    <div class="banner mismatch" role="alert" data-testid="mismatch-banner">
      {mismatches.map((m) => (
        <MismatchRow
          key={m.verificationId}
          mismatch={m}
          orderLabel={numbers[m.orderId] ? `#${numbers[m.orderId]}` : m.orderId.slice(0, 8)}
          canReview={signedIn}
        />
      ))}
    </div>
  );
}

/** Long actions (model sync, updates, big syncs, restarts) with their progress. */
export function ActionsBar() {
  const actions = useStore((s) => s.topics.actions);
  if (actions.length === 0) return null;
  return (
    <section class="actions-bar" aria-label="Actions in progress" aria-live="polite">
      {actions.map((action) => (
        <div class={`action ${action.state}`} key={action.id} data-testid="action">
          <div class="action-head">
            <span>{action.label}</span>
            <span class="action-state">
              {action.state === 'running'
                ? action.progress_pct === null
                  ? 'running'
                  : `${Math.round(action.progress_pct)}%`
                : action.state}
            </span>
          </div>
          <ProgressBar
            label={action.label}
            pct={action.state === 'running' ? action.progress_pct : 100}
            tone={action.state === 'failed' ? 'bad' : action.state === 'succeeded' ? 'ok' : undefined}
          />
          {action.detail && <div class="muted">{action.detail}</div>}
        </div>
      ))}
    </section>
  );
}
