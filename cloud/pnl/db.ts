import type { Kysely } from 'kysely';
import type { Db } from '../db/index.ts';
import type { PnlTables } from './tables.ts';

/** The cloud store seen with the P&L tables, which the module owns (the shared schema need not know them). */
export type PnlDb = Kysely<PnlTables>;
export const pnlDb = (db: Db | PnlDb) => db as unknown as PnlDb;
