/**
 * Sign-in: a tile per staff member, then the PIN pad. The "Time clock" mode uses the same two
 * steps for a single punch without staying signed in.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import { useLoad } from '../../hooks.ts';
import { loginErrorMessage } from '../../lib/messages.ts';
import { pinLogin, publicApi, startSession } from '../../session.ts';
import { navigate, type Session } from '../../store.ts';
import type { StaffTile } from '../../types.ts';
import { Keypad } from './keypad.tsx';
import { PunchPanel } from './punch-panel.tsx';
import './signin.css';

type Mode = 'sign-in' | 'time-clock';

function Tiles(props: { onPick: (tile: StaffTile) => void }) {
  const staff = useLoad(() => publicApi.get<{ items: StaffTile[] }>('/v1/auth/staff'), [], 60_000);
  if (staff.error && !staff.data)
    return (
      <div class="empty" role="alert">
        <p>The staff list could not be read: {staff.error.message}</p>
        <button type="button" class="btn big" onClick={staff.reload}>
          Try again
        </button>
      </div>
    );
  if (!staff.data) return <p class="muted">Loading staff…</p>;
  return (
    <div class="tiles">
      {staff.data.items.map((tile) => (
        <button
          type="button"
          key={tile.id}
          class="tile"
          data-testid="staff-tile"
          data-identifier={tile.identifier}
          aria-label={`Sign in as ${tile.display_name}`}
          onClick={() => props.onPick(tile)}
        >
          <span class="initials" aria-hidden="true">
            {tile.initials}
          </span>
          <span class="tile-name">{tile.display_name}</span>
        </button>
      ))}
    </div>
  );
}

/** Back to the tiles after a while untouched: a half-typed PIN should not wait for the next person. */
const STEP_TIMEOUT_MS = 45_000;

export function SignInScreen() {
  const [mode, setMode] = useState<Mode>('sign-in');
  const [picked, setPicked] = useState<StaffTile>();
  const [punching, setPunching] = useState<Session>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [resetKey, setResetKey] = useState(0);

  const reset = () => {
    setPicked(undefined);
    setError(undefined);
    setPunching(undefined);
  };

  useEffect(() => {
    if (!picked || punching) return;
    const timer = setTimeout(reset, STEP_TIMEOUT_MS);
    return () => clearTimeout(timer);
  }, [picked, punching, resetKey]);

  const submit = async (pin: string) => {
    if (!picked) return;
    setBusy(true);
    setError(undefined);
    try {
      const session = await pinLogin(picked.identifier, pin, picked.display_name);
      if (mode === 'time-clock') return setPunching(session);
      navigate('store');
      startSession(session);
    } catch (e) {
      const refusal = e instanceof ApiError ? e : new ApiError(0, 'NETWORK', (e as Error).message);
      setError(loginErrorMessage(refusal));
      setResetKey((k) => k + 1);
    } finally {
      setBusy(false);
    }
  };

  const punchDone = (message: string) => {
    reset();
    setMode('sign-in');
    setNotice(message || undefined);
  };

  return (
    <div class="signin">
      <header class="signin-head">
        <h1>{mode === 'time-clock' ? 'Time clock' : 'Sign in'}</h1>
        <button
          type="button"
          class={`btn big ${mode === 'time-clock' ? 'primary' : ''}`}
          data-testid="signin-timeclock"
          aria-pressed={mode === 'time-clock'}
          onClick={() => {
            reset();
            setNotice(undefined);
            setMode(mode === 'time-clock' ? 'sign-in' : 'time-clock');
          }}
        >
          {mode === 'time-clock' ? 'Back to sign-in' : 'Time clock'}
        </button>
      </header>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {punching ? (
        <PunchPanel session={punching} onDone={punchDone} />
      ) : picked ? (
        <div class="pin-step">
          <div class="pin-who">
            <span class="initials big" aria-hidden="true">
              {picked.initials}
            </span>
            <h2>{picked.display_name}</h2>
            <p class="muted">{mode === 'time-clock' ? 'Enter your PIN to punch' : 'Enter your PIN'}</p>
            <button type="button" class="btn" onClick={reset}>
              Not you?
            </button>
            {error && (
              <p class="error-text big" role="alert" data-testid="signin-error">
                {error}
              </p>
            )}
          </div>
          <Keypad busy={busy} onSubmit={submit} resetKey={resetKey} />
        </div>
      ) : (
        <Tiles
          onPick={(tile) => {
            setNotice(undefined);
            setPicked(tile);
          }}
        />
      )}
    </div>
  );
}
