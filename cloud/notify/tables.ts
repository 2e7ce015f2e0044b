/** Issue 10 stub: the notify module's tables, filled in by its helper. */
export type NotifyTables = Record<never, never>;
