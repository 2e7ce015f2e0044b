/** Issue 10 stub: the oncall module's tables, filled in by its helper. */
export type OncallTables = Record<never, never>;
