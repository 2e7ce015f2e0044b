/**
 * Ranges for the numbers requests carry, shared by both processes and both sides of sync: each
 * range fits the column that stores the value on SQLite and PostgreSQL, and every number a route
 * accepts has one (shared/http/validation.ts refuses to start a route without).
 */
import { type NumberOptions, type TInteger, type TNumber, Type } from '@sinclair/typebox';
import { InvalidRequestError } from './errors.ts';

/** Sequence numbers, versions, cursors and counters: any safe integer from 0. */
export const MAX_COUNTER = Number.MAX_SAFE_INTEGER;

/** One amount of money in currency units: a billion of any currency is beyond a restaurant's day. */
export const MAX_CURRENCY_UNITS = 1_000_000_000;

/** The same bound in minor units (cents), as money is stored. */
export const MAX_MINOR_UNITS = MAX_CURRENCY_UNITS * 100;

/** A measurement (a metric sample, a sensor reading): finite, and exact as a double to the unit. */
export const MAX_METRIC_VALUE = Number.MAX_SAFE_INTEGER;

/** Page numbers of the lists that page by number rather than by cursor. */
export const MAX_PAGE = 100_000;

export const Counter = (options: NumberOptions = {}): TInteger =>
  Type.Integer({ minimum: 0, maximum: MAX_COUNTER, ...options });

export const MinorUnits = (options: NumberOptions = {}): TInteger =>
  Type.Integer({ minimum: 0, maximum: MAX_MINOR_UNITS, ...options });

/** Currency units, as the documented decimal amounts are written (services check the decimals). */
export const CurrencyUnits = (options: NumberOptions = {}): TNumber =>
  Type.Number({ minimum: 0, maximum: MAX_CURRENCY_UNITS, ...options });

export const PageNumber = (options: NumberOptions = {}): TInteger =>
  Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, ...options });

const nonFinite = (value: unknown) => typeof value === 'number' && !Number.isFinite(value);

/**
 * The stores' last line (both processes): a statement whose parameters carry NaN or Infinity is
 * refused before it reaches the database, as a 400, and its transaction rolls back. Parameters are
 * positional values, or one object of named values as better-sqlite3 takes them.
 */
export function assertFiniteParameters(parameters: readonly unknown[]) {
  for (const value of parameters) {
    const bad =
      nonFinite(value) ||
      (typeof value === 'object' &&
        value !== null &&
        !Buffer.isBuffer(value) &&
        Object.values(value).some(nonFinite));
    if (bad) throw new InvalidRequestError('A number in the request is not finite');
  }
}
