/** Issue 10 stub: the aiops module's settings, filled in by its helper. */
export type AiopsConfig = Record<never, never>;

/** Every variable loadConfig reads (the README's configuration table). */
export const AIOPS_VARIABLES = [] as const;

export function loadAiopsConfig(_env: Record<string, string | undefined>): AiopsConfig {
  return {};
}
