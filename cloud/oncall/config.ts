/** Issue 10 stub: the oncall module's settings, filled in by its helper. */
export type OncallConfig = Record<never, never>;

/** Every variable loadConfig reads (the README's configuration table). */
export const ONCALL_VARIABLES = [] as const;

export function loadOncallConfig(_env: Record<string, string | undefined>): OncallConfig {
  return {};
}
