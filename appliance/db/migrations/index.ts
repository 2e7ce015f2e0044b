import type Database from 'better-sqlite3';
import * as changeLog from './0001-change-log.ts';

export interface ApplianceMigration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}

/** Applied in version order, each in its own transaction; never edit one that has shipped. */
export const migrations: ApplianceMigration[] = [changeLog.migration];
