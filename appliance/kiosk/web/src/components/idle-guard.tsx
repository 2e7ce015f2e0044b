/**
 * Signs the user out after a while untouched (2 minutes by default, `?idle=<seconds>` to change),
 * with a countdown over the screen for the last 15 seconds. Any touch, click or key resets it.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createInactivity, type InactivityPhase, inactivityFromQuery } from '../lib/inactivity.ts';

const ACTIVITY = ['pointerdown', 'touchstart', 'keydown', 'wheel'] as const;

export function IdleGuard(props: { onExpire: () => void }) {
  const inactivity = useMemo(() => createInactivity(inactivityFromQuery(location.search), Date.now()), []);
  const [phase, setPhase] = useState<InactivityPhase>({ phase: 'active' });

  useEffect(() => {
    const touch = () => {
      inactivity.touch(Date.now());
      setPhase(inactivity.phaseAt(Date.now()));
    };
    for (const type of ACTIVITY) window.addEventListener(type, touch, { capture: true, passive: true });
    const timer = setInterval(() => {
      const next = inactivity.phaseAt(Date.now());
      setPhase(next);
      if (next.phase === 'expired') props.onExpire();
    }, 250);
    return () => {
      clearInterval(timer);
      for (const type of ACTIVITY) window.removeEventListener(type, touch, { capture: true });
    };
  }, [inactivity, props.onExpire]);

  if (phase.phase !== 'warning') return null;
  return (
    <div class="overlay idle-overlay" data-testid="idle-warning">
      <div class="dialog" role="alertdialog" aria-live="assertive" aria-label="Signing out soon">
        <h2>Still there?</h2>
        <p class="figure">Signing out in {phase.secondsLeft} s</p>
        <button type="button" class="btn primary big">
          I’m still here
        </button>
      </div>
    </div>
  );
}
