import { Secret, TOTP } from 'otpauth';

export const TOTP_PERIOD_SECONDS = 30;

/** RFC 6238 with the authenticator-app defaults: SHA-1, 6 digits, 30-second steps. */
function totpFor(secretBase32: string, label = 'user', issuer = 'Edge Appliance Cloud') {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  });
}

export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

export const totpUri = (secretBase32: string, label: string, issuer?: string) =>
  totpFor(secretBase32, label, issuer).toString();

/**
 * The time step the code belongs to, when it matches within one step either side; undefined
 * otherwise. The caller refuses a step not newer than the last one accepted (replay).
 */
export function matchTotp(secretBase32: string, code: string, at: Date): number | undefined {
  const delta = totpFor(secretBase32).validate({ token: code, timestamp: at.getTime(), window: 1 });
  if (delta === null) return undefined;
  return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

/** The code for a moment, for tests and tools. */
export const totpCode = (secretBase32: string, at: Date) =>
  totpFor(secretBase32).generate({ timestamp: at.getTime() });
