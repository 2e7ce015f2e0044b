/** Issue 10 stub: the aiops module's tables, filled in by its helper. */
export type AiopsTables = Record<never, never>;
