/** Issue 10 stub: the chat module's tables, filled in by its helper. */
export type ChatTables = Record<never, never>;
