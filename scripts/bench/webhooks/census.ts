/**
 * Where a measure's database time goes: every statement this process runs, counted and timed by its
 * SQL (parameters and value lists folded), on either driver. On SQLite a statement's time is the
 * event loop blocked in it (better-sqlite3 is synchronous: a COMMIT's fsync included); on PostgreSQL
 * it is the round trip, during which other work goes on. Installed by patching the drivers'
 * prototypes in this process only: the bench's instrument, never the product's.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { round } from '../lib/load.ts';

export interface StatementFigures {
  sql: string;
  count: number;
  total_ms: number;
  /** Per delivery the measure made, so measures of different sizes compare. */
  per_delivery: number;
  mean_ms: number;
}

const figures = new Map<string, { count: number; ms: number }>();
let installed = false;

function labelOf(source: string) {
  return source
    .replace(/"/g, '')
    .replace(/\s+/g, ' ')
    .replace(/ values \(.*$/i, ' values (…)')
    .replace(/\((?:\?|\$\d+)(?:, (?:\?|\$\d+))*\)/g, '(…)')
    .slice(0, 110);
}

function note(source: string, started: number) {
  const label = labelOf(source);
  const entry = figures.get(label) ?? { count: 0, ms: 0 };
  entry.count += 1;
  entry.ms += performance.now() - started;
  figures.set(label, entry);
}

function patchSqlite() {
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>;
  probe.close();
  for (const method of ['run', 'all', 'get'] as const) {
    const original = statement[method] as (...args: unknown[]) => unknown;
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        note(this.source, started);
      }
    };
  }
}

function patchPostgres() {
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = client.query;
  client.query = function (this: unknown, ...args: unknown[]) {
    const started = performance.now();
    const result = original.apply(this, args);
    const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text);
    if (result instanceof Promise) void result.finally(() => note(text, started)).catch(() => undefined);
    return result;
  };
}

export const census = {
  install() {
    if (installed) return;
    installed = true;
    patchSqlite();
    patchPostgres();
  },
  reset() {
    figures.clear();
  },
  /** The statements that took the most time, heaviest first. */
  top(deliveries: number, limit = 12): StatementFigures[] {
    return [...figures]
      .map(([sql, { count, ms }]) => ({
        sql,
        count,
        total_ms: round(ms, 0),
        per_delivery: round(count / Math.max(1, deliveries), 3),
        mean_ms: round(ms / count, 3),
      }))
      .sort((a, b) => b.total_ms - a.total_ms)
      .slice(0, limit);
  },
  totals(deliveries: number) {
    let count = 0;
    let ms = 0;
    for (const entry of figures.values()) {
      count += entry.count;
      ms += entry.ms;
    }
    return { statements: count, per_delivery: round(count / Math.max(1, deliveries), 2), ms: round(ms, 0) };
  },
};
