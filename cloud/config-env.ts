/**
 * Reading one environment variable for a config loader: empty means unset (the default), and a
 * value out of range stops start-up with a ConfigError naming the variable, the range and the value.
 */
import { settingsReader } from '../shared/config/settings.ts';
import { ConfigError } from './config-error.ts';

export type Env = Record<string, string | undefined>;

const unset = (raw: string | undefined): raw is undefined | '' => raw === undefined || raw === '';

/** A number in [min, max]; whole unless `whole` is false. */
export function number(env: Env, name: string, fallback: number, min: number, max: number, whole = true) {
  const raw = env[name];
  if (unset(raw)) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || (whole && !Number.isInteger(value)) || value < min || value > max) {
    const kind = whole ? 'a whole number' : 'a number';
    throw new ConfigError(`${name} must be ${kind} from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

export const integer = (env: Env, name: string, fallback: number, min: number, max: number) =>
  number(env, name, fallback, min, max);

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (unset(raw)) return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** true, false, 1 or 0. */
export const flag = (env: Env, name: string, fallback: boolean) =>
  ['true', '1'].includes(oneOf(env, name, ['true', 'false', '1', '0'], fallback ? 'true' : 'false'));

/** Reads one row of a settings table (shared/config/settings.ts); a bad value is a ConfigError. */
export const read = settingsReader((message) => new ConfigError(message));
