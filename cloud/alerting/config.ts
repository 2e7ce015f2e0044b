/** Issue 10 stub: the alerting module's settings, filled in by its helper. */
export type AlertingConfig = Record<never, never>;

/** Every variable loadConfig reads (the README's configuration table). */
export const ALERTING_VARIABLES = [] as const;

export function loadAlertingConfig(_env: Record<string, string | undefined>): AlertingConfig {
  return {};
}
