import type Database from 'better-sqlite3';
import { assertFiniteParameters } from '../../shared/http/numbers.ts';

type Statement = Database.Statement<unknown[], unknown>;
const EXECUTING = ['run', 'get', 'all', 'iterate'] as const;

/**
 * The store's last line against a number no column should hold: every statement prepared on this
 * connection refuses NaN and Infinity in its parameters (a 400), which SQLite would otherwise
 * store and every later read of the row would trip over. Request validation refuses them first.
 */
export function refuseNonFiniteNumbers(db: Database.Database) {
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => guard(prepare(source) as Statement)) as typeof db.prepare;
}

function guard(statement: Statement) {
  for (const method of EXECUTING) {
    const execute = statement[method].bind(statement) as (...parameters: unknown[]) => unknown;
    (statement as unknown as Record<string, unknown>)[method] = (...parameters: unknown[]) => {
      assertFiniteParameters(parameters);
      return execute(...parameters);
    };
  }
  return statement;
}
