/** Issue 10 stub: the chat module's settings, filled in by its helper. */
export type ChatConfig = Record<never, never>;

/** Every variable loadConfig reads (the README's configuration table). */
export const CHAT_VARIABLES = [] as const;

export function loadChatConfig(_env: Record<string, string | undefined>): ChatConfig {
  return {};
}
