/** On-call reads no settings: schedules, zones and overrides are tenant data, managed over the API. */
export type OncallConfig = Record<never, never>;

/** Every variable loadOncallConfig reads (the README's configuration table): none. */
export const ONCALL_VARIABLES = [] as const;

export function loadOncallConfig(_env: Record<string, string | undefined>): OncallConfig {
  return {};
}
