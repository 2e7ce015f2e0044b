/** What the kiosk says when something is refused, in words for the person at the screen. */

export interface Refusal {
  status: number;
  code: string;
  message: string;
  retryAfterSeconds: number | null;
}

const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));

/** A PIN login refused: wrong PIN (401), locked (423), throttled (429), or the appliance away. */
export function loginErrorMessage(refusal: Refusal): string {
  switch (refusal.status) {
    case 0:
      return 'The appliance did not answer. Check the connection and try again.';
    case 400:
    case 401:
      return 'Wrong PIN. Try again.';
    case 423:
      return refusal.retryAfterSeconds
        ? `Too many wrong PINs: this account is locked for ${minutes(refusal.retryAfterSeconds)} min. Ask a manager if you need in now.`
        : 'Too many wrong PINs: this account is locked for a while. Ask a manager.';
    case 429:
      return `Too many attempts. Wait ${refusal.retryAfterSeconds ?? 'a few'} seconds, then try again.`;
    case 403:
      return refusal.code === 'MFA_REQUIRED'
        ? refusal.message
        : 'This account cannot sign in here. Ask a manager.';
    default:
      return `Sign-in failed: ${refusal.message}`;
  }
}
