/**
 * The time clock at the sign-in screen: the person's PIN session is used for one punch and ended
 * at once (also on Cancel, and after a short while untouched), so nobody stays signed in.
 */
import { useEffect, useState } from 'preact/hooks';
import { createApi } from '../../api.ts';
import { formatClock } from '../../lib/format.ts';
import { PUNCH_LABELS, type PunchKind, punchesFor, SHIFT_LABELS } from '../../lib/timeclock.ts';
import { learnTimeZone, logout } from '../../session.ts';
import { type Session, store } from '../../store.ts';
import type { Punch, Shift } from '../../types.ts';

const GIVE_UP_MS = 30_000;

export function PunchPanel(props: { session: Session; onDone: (message: string) => void }) {
  const { session } = props;
  const [shift, setShift] = useState<Shift>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const api = createApi({ token: () => session.token });

  const finish = (message: string) => {
    void logout(session.token);
    props.onDone(message);
  };

  useEffect(() => {
    api
      .get<Shift>('/v1/commerce/timeclock/me')
      .then(setShift)
      .catch((e: Error) => setError(e.message));
    void learnTimeZone(session.token);
    const giveUp = setTimeout(() => finish(''), GIVE_UP_MS);
    return () => clearTimeout(giveUp);
  }, [session.token]);

  const punch = async (kind: PunchKind) => {
    setBusy(true);
    try {
      const made = await api.post<Punch>('/v1/commerce/timeclock/punches', { kind });
      finish(
        `${session.displayName}: ${PUNCH_LABELS[kind]} at ${formatClock(made.at, { timeZone: store.get().timeZone })}`,
      );
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };

  return (
    <section class="punch-panel" aria-label="Time clock">
      <h2>{session.displayName}</h2>
      {shift && <p class="figure">{SHIFT_LABELS[shift.state]}</p>}
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      <div class="punch-buttons">
        {shift &&
          punchesFor(shift.state).map((kind) => (
            <button
              type="button"
              key={kind}
              class="btn primary big"
              data-testid={`punch-${kind}`}
              disabled={busy}
              onClick={() => punch(kind)}
            >
              {PUNCH_LABELS[kind]}
            </button>
          ))}
        <button type="button" class="btn big" onClick={() => finish('')}>
          Cancel
        </button>
      </div>
    </section>
  );
}
