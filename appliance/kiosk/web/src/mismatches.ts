/**
 * Mismatches raised by the pickup-window camera, waiting for a person on every screen with a
 * repeating beep. They outlive a sign-out: the alarm is the store's, not the signed-in user's.
 */
import { addMismatch, type Mismatch, mismatchOf, type VerificationPayload } from './lib/mismatch.ts';
import { startAlarm, stopAlarm } from './sound.ts';
import { type StoreEvent, store } from './store.ts';

const acknowledged = new Set<string>();

const KEPT = 100;

export function onVerificationEvent(event: StoreEvent) {
  if (event.type !== 'vision.order_verified') return;
  const payload = { created_at: event.occurred_at, ...(event.data as VerificationPayload) };
  store.set((s) => ({ verifications: [payload, ...s.verifications].slice(0, KEPT) }));
  const mismatch = mismatchOf(event.data, event.occurred_at);
  if (!mismatch) return;
  store.set((s) => ({ mismatches: addMismatch(s.mismatches, acknowledged, mismatch) }));
}

/** Someone has seen it: the banner and, with the last one, the beeping stop. */
export function acknowledge(mismatch: Mismatch) {
  acknowledged.add(mismatch.verificationId);
  store.set((s) => ({
    mismatches: s.mismatches.filter((m) => m.verificationId !== mismatch.verificationId),
  }));
}

/** The alarm sounds exactly while a mismatch is open. */
export function followAlarm(): () => void {
  const sync = () => (store.get().mismatches.length > 0 ? startAlarm() : stopAlarm());
  sync();
  const unsubscribe = store.subscribe(sync);
  return () => {
    unsubscribe();
    stopAlarm();
  };
}
