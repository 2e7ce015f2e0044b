/** Issue 10 stub: the notify module's settings, filled in by its helper. */
export type NotifyConfig = Record<never, never>;

/** Every variable loadConfig reads (the README's configuration table). */
export const NOTIFY_VARIABLES = [] as const;

export function loadNotifyConfig(_env: Record<string, string | undefined>): NotifyConfig {
  return {};
}
