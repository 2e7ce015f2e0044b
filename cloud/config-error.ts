/**
 * A bad configuration value: start-up stops with its message. Its own file, so each module's
 * config.ts can throw it without importing cloud/config.ts, which imports them all.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
