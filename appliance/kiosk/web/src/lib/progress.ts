/** How far a "Sync now" has got: the share of the queue at the start that has gone since. */
export function drainProgress(startDepth: number, currentDepth: number): number {
  if (startDepth <= 0) return 100;
  const done = (startDepth - Math.min(Math.max(currentDepth, 0), startDepth)) / startDepth;
  return Math.round(done * 100);
}

/** A progress figure clamped to 0..100, or null for "indeterminate". */
export function clampPct(value: number | null | undefined): number | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  return Math.min(100, Math.max(0, Math.round(value)));
}
