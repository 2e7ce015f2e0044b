/** Periods and page cursors as the vision lists and metrics take them. */
import { invalidCursor, invalidPeriod } from './errors.ts';
import type { Before } from './store.ts';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export const MAX_PERIOD_MS = 30 * UNIT_MS.d;
/** A count and a unit: minutes, hours or days (`15m`, `1h`, `24h`, `7d`). */
export const PERIOD_PATTERN = '^[0-9]{1,6}[mhd]$';

/** The period's length in milliseconds; at least a minute, at most 30 days. */
export function parsePeriod(period: string): number {
  const match = /^([0-9]{1,6})([mhd])$/.exec(period);
  if (!match) throw invalidPeriod('must be a count and a unit: m, h or d (e.g. 15m, 1h, 7d)');
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms === 0) throw invalidPeriod('must be at least 1m');
  if (ms > MAX_PERIOD_MS) throw invalidPeriod('must be at most 30d');
  return ms;
}

/** A position in a list ordered newest first by (time, id), opaque to the client. */
export const encodeCursor = (before: Before) =>
  Buffer.from(`${before.at}|${before.id}`).toString('base64url');

export function decodeCursor(cursor: string | undefined): Before | undefined {
  if (cursor === undefined) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString();
  const bar = text.indexOf('|');
  const at = text.slice(0, bar);
  const id = text.slice(bar + 1);
  if (bar < 0 || !id || Number.isNaN(Date.parse(at)) || new Date(at).toISOString() !== at)
    throw invalidCursor();
  return { at, id };
}
