/** Issue 10 stub: the cockpit module's settings, filled in by its helper. */
export type CockpitConfig = Record<never, never>;

/** Every variable loadConfig reads (the README's configuration table). */
export const COCKPIT_VARIABLES = [] as const;

export function loadCockpitConfig(_env: Record<string, string | undefined>): CockpitConfig {
  return {};
}
