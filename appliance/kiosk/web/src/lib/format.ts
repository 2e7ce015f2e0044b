/** How the kiosk writes times, ages and money. Pure: the caller passes "now". */
import { formatTimeOfDay } from './zone.ts';

const pad = (n: number) => String(n).padStart(2, '0');

/** A running age, as on a kitchen screen: `0:07`, `12:45`, `1:02:09`. */
export function formatAge(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(seconds)}` : `${minutes}:${pad(seconds)}`;
}

/** Seconds from an ISO time to `now` (ms), never negative (a kiosk clock slightly behind). */
export function secondsSince(iso: string, now: number): number {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? 0 : Math.max(0, Math.floor((now - at) / 1000));
}

/** "just now", "42 s ago", "5 min ago", "3 h ago", "2 d ago"; "never" without a time. */
export function formatRelative(iso: string | null | undefined, now: number): string {
  if (!iso) return 'never';
  const s = secondsSince(iso, now);
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** A duration in words for figures like an estimated wait: `45 s`, `3 min 10 s`, `1 h 5 min`. */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 === 0 ? `${s / 60} min` : `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

function currencyFormat(currency: string, locale?: string) {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency });
  } catch {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' });
  }
}

/** Minor units (cents) in the currency's own number of decimals (JPY has none). */
export function formatMinor(minor: number, currency: string, locale?: string): string {
  const format = currencyFormat(currency, locale);
  const exponent = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** exponent);
}

/** Decimal amounts, as orders carry them. */
export function formatMoney(amount: number, currency: string, locale?: string): string {
  return currencyFormat(currency, locale).format(amount);
}

/** `+12.5%`, `-3%`, `0%`; an em dash when there is nothing to compare with. */
export function formatChange(pct: number | null | undefined): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return '—';
  const rounded = Math.round(pct * 10) / 10;
  if (rounded === 0) return '0%';
  return `${rounded > 0 ? '+' : '-'}${Math.abs(rounded)}%`;
}

/** A clock time in the kiosk's locale, on the store's clock when its zone is given: `14:05`. */
export function formatClock(
  iso: string | null | undefined,
  options: { timeZone?: string | undefined; locale?: string | undefined } = {},
): string {
  if (!iso) return '—';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '—';
  return formatTimeOfDay(at, options);
}

export type AgeLevel = 'ok' | 'warn' | 'late';

/** Kitchen ticket colours: amber from 5 minutes, red from 10. */
export const TICKET_THRESHOLDS = { warnSeconds: 300, lateSeconds: 600 } as const;

export function ageLevel(seconds: number, thresholds = TICKET_THRESHOLDS): AgeLevel {
  if (seconds >= thresholds.lateSeconds) return 'late';
  if (seconds >= thresholds.warnSeconds) return 'warn';
  return 'ok';
}
