import { describe, expect, it } from 'vitest';
import { backoffDelay, closeAction, FEED_BACKOFF } from '../../../../appliance/kiosk/web/src/lib/backoff.ts';

describe('feed reconnect backoff', () => {
  it('doubles from half a second, between half and all of the ceiling', () => {
    expect(backoffDelay(0, 0)).toBe(250);
    expect(backoffDelay(0, 1)).toBe(500);
    expect(backoffDelay(1, 0)).toBe(500);
    expect(backoffDelay(3, 0.5)).toBe(3000);
  });

  it('never passes the maximum, however many attempts', () => {
    for (const attempt of [6, 10, 50, 1000]) {
      expect(backoffDelay(attempt, 0.999)).toBeLessThanOrEqual(FEED_BACKOFF.maxMs);
      expect(backoffDelay(attempt, 0)).toBe(FEED_BACKOFF.maxMs / 2);
    }
  });

  it('keeps a randomness outside [0, 1) in range', () => {
    expect(backoffDelay(0, -5)).toBe(250);
    expect(backoffDelay(0, 7)).toBe(500);
  });

  it('signs out on 4401 and reconnects on any other close', () => {
    expect(closeAction(4401)).toBe('sign-out');
    for (const code of [1000, 1001, 1006, 1011, 4000]) expect(closeAction(code)).toBe('reconnect');
  });
});
