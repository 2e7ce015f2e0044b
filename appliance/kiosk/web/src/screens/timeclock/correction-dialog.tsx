import { useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { formatClock } from '../../lib/format.ts';
import { correctedAt, localTime, PUNCH_LABELS } from '../../lib/timeclock.ts';
import { api } from '../../session.ts';
import { useStore } from '../../store.ts';
import type { Punch } from '../../types.ts';

/** A manager moves a punch to another time of its day, saying why. */
export function CorrectionDialog(props: { punch: Punch; name: string; onClose: (changed: boolean) => void }) {
  const { punch } = props;
  const timeZone = useStore((s) => s.timeZone);
  const [time, setTime] = useState(localTime(punch.at, timeZone));
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<{ time?: string; reason?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const at = correctedAt(punch.at, time, timeZone);
    const problems = {
      time: at ? undefined : 'Enter a time like 09:30',
      reason: reason.trim()
        ? reason.length > 500
          ? 'At most 500 characters'
          : undefined
        : 'Say why the punch is corrected',
    };
    if (problems.time || problems.reason) return setErrors(problems);
    setBusy(true);
    try {
      await api.post(`/v1/commerce/timeclock/punches/${punch.id}/correct`, { at, reason: reason.trim() });
      props.onClose(true);
    } catch (e) {
      setErrors({ form: e instanceof ApiError ? e.message : 'The correction was not saved' });
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={`Correct ${PUNCH_LABELS[punch.kind].toLowerCase()} of ${props.name}`}
      onClose={() => props.onClose(false)}
    >
      <form class="correction" onSubmit={submit} noValidate data-testid="correction-form">
        <p class="muted">Recorded at {formatClock(punch.at, { timeZone })}</p>
        <div class={`field ${errors.time ? 'invalid' : ''}`}>
          <label for="correct-time">New time</label>
          <input
            id="correct-time"
            type="time"
            value={time}
            onInput={(e) => setTime((e.target as HTMLInputElement).value)}
            aria-invalid={errors.time ? true : undefined}
          />
          {errors.time && (
            <span class="field-error" data-testid="field-error">
              {errors.time}
            </span>
          )}
        </div>
        <div class={`field ${errors.reason ? 'invalid' : ''}`}>
          <label for="correct-reason">Reason</label>
          <textarea
            id="correct-reason"
            rows={3}
            maxLength={500}
            value={reason}
            onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)}
            aria-invalid={errors.reason ? true : undefined}
          />
          {errors.reason && (
            <span class="field-error" data-testid="field-error">
              {errors.reason}
            </span>
          )}
        </div>
        {errors.form && (
          <p class="error-text" role="alert">
            {errors.form}
          </p>
        )}
        <div class="dialog-actions">
          <button type="button" class="btn big" onClick={() => props.onClose(false)}>
            Cancel
          </button>
          <button type="submit" class="btn primary big" disabled={busy}>
            {busy ? 'Saving…' : 'Save correction'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
