/** Numbers, money and times for people: times in the store's own zone where a store is concerned. */

const numberFormat = new Intl.NumberFormat('en-US');

export function formatNumber(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return digits === 0
    ? numberFormat.format(Math.round(value))
    : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Money given as a decimal string or number in major units ("12.50"), as the API answers it. */
export function formatMoney(value: number | string | null | undefined, currency = 'USD'): string {
  if (value === null || value === undefined || value === '') return '—';
  const amount = typeof value === 'string' ? Number(value) : value;
  if (!Number.isFinite(amount)) return String(value);
  return amount.toLocaleString('en-US', { style: 'currency', currency });
}

export function formatPercent(ratio: number | null | undefined, digits = 1): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '—';
  return `${(ratio * 100).toFixed(digits)}%`;
}

/**
 * One Intl formatter per zone and shape, kept: making one costs about a millisecond, which a
 * table of hundreds of stores cannot pay on every render.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(kind: 'datetime' | 'time', timeZone: string | null | undefined) {
  const key = `${kind}|${timeZone ?? ''}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone: timeZone ?? undefined,
      ...(kind === 'datetime' ? { month: 'short', day: 'numeric' } : {}),
      hour: '2-digit',
      minute: '2-digit',
      ...(timeZone ? { timeZoneName: 'short' } : {}),
    });
    formatters.set(key, found);
  }
  return found;
}

function formatIn(kind: 'datetime' | 'time', iso: string | null | undefined, timeZone?: string | null) {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  try {
    return formatter(kind, timeZone).format(date);
  } catch {
    // A zone the browser does not know: the instant in UTC rather than nothing.
    return date.toISOString();
  }
}

/** A date and time in `timeZone` (the store's) or the viewer's own when none is given. */
export const formatDateTime = (iso: string | null | undefined, timeZone?: string | null) =>
  formatIn('datetime', iso, timeZone);

export const formatTime = (iso: string | null | undefined, timeZone?: string | null) =>
  formatIn('time', iso, timeZone);

/** "12 s ago", "5 min ago", "3 h ago", "2 d ago". */
export function formatAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

/** Today's date (YYYY-MM-DD) in a zone: a store's business day starts in its own time. */
export function todayIn(timeZone?: string | null): string {
  return new Date().toLocaleDateString('en-CA', { timeZone: timeZone ?? undefined });
}
