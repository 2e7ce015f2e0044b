import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import { assertFiniteParameters } from '../../shared/http/numbers.ts';

/**
 * The store's last line against a number no column should hold. Request validation refuses NaN
 * and Infinity first; should one slip through (a value computed from input, a route's mistake),
 * the statement carrying it is refused before it reaches the database: SQLite would store it and
 * every later read of the row would fail, PostgreSQL stores it in a float column. The refusal is a
 * 400, and the transaction around it rolls back, so nothing of the request is written.
 */
export function refusingNonFiniteNumbers(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => guardDriver(dialect.createDriver()),
  };
}

function guardConnection(connection: DatabaseConnection): DatabaseConnection {
  return {
    executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      assertFiniteParameters(query.parameters);
      return connection.executeQuery<R>(query);
    },
    streamQuery<R>(query: CompiledQuery, chunkSize?: number) {
      assertFiniteParameters(query.parameters);
      return connection.streamQuery<R>(query, chunkSize);
    },
  };
}

/** The driver hands out guarded connections and gets its own back for transactions and release. */
function guardDriver(driver: Driver): Driver {
  const guarded = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const unwrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const outer = (connection: DatabaseConnection) => {
    let wrapper = guarded.get(connection);
    if (!wrapper) {
      wrapper = guardConnection(connection);
      guarded.set(connection, wrapper);
      unwrapped.set(wrapper, connection);
    }
    return wrapper;
  };
  const inner = (wrapper: DatabaseConnection) => unwrapped.get(wrapper) ?? wrapper;
  return {
    init: () => driver.init(),
    acquireConnection: async () => outer(await driver.acquireConnection()),
    beginTransaction: (connection, settings) => driver.beginTransaction(inner(connection), settings),
    commitTransaction: (connection) => driver.commitTransaction(inner(connection)),
    rollbackTransaction: (connection) => driver.rollbackTransaction(inner(connection)),
    releaseConnection: (connection) => driver.releaseConnection(inner(connection)),
    destroy: () => driver.destroy(),
    ...(driver.savepoint && {
      savepoint: (connection, name, compile) => driver.savepoint!(inner(connection), name, compile),
    }),
    ...(driver.rollbackToSavepoint && {
      rollbackToSavepoint: (connection, name, compile) =>
        driver.rollbackToSavepoint!(inner(connection), name, compile),
    }),
    ...(driver.releaseSavepoint && {
      releaseSavepoint: (connection, name, compile) =>
        driver.releaseSavepoint!(inner(connection), name, compile),
    }),
  };
}
