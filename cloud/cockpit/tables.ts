/** Issue 10 stub: the cockpit module's tables, filled in by its helper. */
export type CockpitTables = Record<never, never>;
