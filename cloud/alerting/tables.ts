/** Issue 10 stub: the alerting module's tables, filled in by its helper. */
export type AlertingTables = Record<never, never>;
