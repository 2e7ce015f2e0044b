/**
 * The time clock: the signed-in person clocks in and out and takes breaks; a manager also sees
 * everyone's punches of the day and corrects them.
 */
import { useState } from 'preact/hooks';
import { useLoad } from '../../hooks.ts';
import { formatClock } from '../../lib/format.ts';
import { formatWorked, PUNCH_LABELS, type PunchKind, punchesFor, SHIFT_LABELS } from '../../lib/timeclock.ts';
import { api } from '../../session.ts';
import { type Session, useStore } from '../../store.ts';
import type { DayPunches, Punch, Shift } from '../../types.ts';
import { CorrectionDialog } from './correction-dialog.tsx';
import './timeclock.css';

function PunchList(props: { punches: Punch[]; onCorrect?: (punch: Punch) => void }) {
  const timeZone = useStore((s) => s.timeZone);
  if (props.punches.length === 0) return <p class="muted">No punches.</p>;
  return (
    <ul class="punches">
      {props.punches.map((punch) => (
        <li key={punch.id} class="punch" data-testid="punch">
          <span class="punch-kind">{PUNCH_LABELS[punch.kind]}</span>
          <span class="punch-time">{formatClock(punch.at, { timeZone })}</span>
          {punch.corrected_by && (
            <span class="muted" title={punch.reason ?? ''}>
              corrected
            </span>
          )}
          {props.onCorrect && (
            <button
              type="button"
              class="btn"
              data-testid="punch-correct"
              onClick={() => props.onCorrect?.(punch)}
              aria-label={`Correct ${PUNCH_LABELS[punch.kind]} at ${formatClock(punch.at, { timeZone })}`}
            >
              Correct
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

function MyShift(props: { session: Session }) {
  const shift = useLoad(() => api.get<Shift>('/v1/commerce/timeclock/me'));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const punch = async (kind: PunchKind) => {
    setBusy(true);
    setError(undefined);
    try {
      await api.post('/v1/commerce/timeclock/punches', { kind });
      shift.reload();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-label="My shift">
      <h2>{props.session.displayName}</h2>
      {shift.error && <p class="error-text">{shift.error.message}</p>}
      {shift.data && (
        <>
          <p class="figure" data-testid="shift-state">
            {SHIFT_LABELS[shift.data.state]}
          </p>
          <div class="punch-buttons">
            {punchesFor(shift.data.state).map((kind) => (
              <button
                type="button"
                key={kind}
                class="btn primary big"
                disabled={busy}
                data-testid={`punch-${kind}`}
                onClick={() => punch(kind)}
              >
                {PUNCH_LABELS[kind]}
              </button>
            ))}
          </div>
          {error && (
            <p class="error-text" role="alert">
              {error}
            </p>
          )}
          <PunchList punches={shift.data.punches} />
        </>
      )}
    </section>
  );
}

function Everyone() {
  const [day, setDay] = useState('');
  const punches = useLoad(
    () => api.get<DayPunches>(`/v1/commerce/timeclock/punches${day ? `?business_day=${day}` : ''}`),
    [day],
    60_000,
  );
  const [correcting, setCorrecting] = useState<{ punch: Punch; name: string }>();
  return (
    <section class="panel" aria-label="Everyone’s punches">
      <div class="panel-head">
        <h2>Punches {punches.data ? `of ${punches.data.business_day}` : ''}</h2>
        <label class="inline-field">
          Day
          <input
            type="date"
            value={day || punches.data?.business_day || ''}
            onInput={(e) => setDay((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      {punches.error && <p class="error-text">{punches.error.message}</p>}
      {punches.data?.staff.length === 0 && <p class="empty">Nobody punched that day.</p>}
      <ul class="staff-punches">
        {punches.data?.staff.map((person) => (
          <li key={person.staff_id} class="staff-day" data-testid="staff-day">
            <div class="staff-day-head">
              <strong>{person.display_name ?? person.staff_id}</strong>
              <span class="badge">{SHIFT_LABELS[person.state]}</span>
              <span class="muted">{formatWorked(person.worked_minutes)}</span>
            </div>
            <PunchList
              punches={person.punches}
              onCorrect={(punch) => setCorrecting({ punch, name: person.display_name ?? person.staff_id })}
            />
          </li>
        ))}
      </ul>
      {correcting && (
        <CorrectionDialog
          punch={correcting.punch}
          name={correcting.name}
          onClose={(changed) => {
            setCorrecting(undefined);
            if (changed) punches.reload();
          }}
        />
      )}
    </section>
  );
}

export function TimeClockScreen(props: { session: Session }) {
  return (
    <div class="timeclock-screen">
      <MyShift session={props.session} />
      {props.session.manager && <Everyone />}
    </div>
  );
}
