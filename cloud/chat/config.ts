/**
 * The chat module's settings (spec 3's chat limits, environment variables and feature flags). Only
 * this file reads the CHAT_* variables; cloud/config.ts calls it once at start-up.
 */

import { type Env, flag, integer } from '../config-env.ts';
import { ConfigError } from '../config-error.ts';

export interface ChatFeatureFlags {
  enabled: boolean;
  voice_transcription: boolean;
  ai_translation: boolean;
  external_bridges: boolean;
}

export interface ChatConfig {
  flags: ChatFeatureFlags;
  /** The WebSocket URL clients are told to use; undefined: derived from the request's host. */
  websocketUrl: string | undefined;
  /** The most UTF-8 bytes a message's content may have. */
  maxMessageBytes: number;
  retentionDays: number;
  /** For the incident flow: an incident channel quiet this long is resolved. */
  incidentAutoResolveHours: number;
  /** Run the retention sweeper in this process. */
  runWorker: boolean;
  sweepIntervalMs: number;
  /** A WebSocket that has not sent a valid auth frame within this is closed with 4408. */
  authTimeoutMs: number;
  /** How long a user with no open connection still shows as online (a reconnect never flaps). */
  presenceGraceMs: number;
  /** Ping period; a connection that has not answered the previous ping is dropped. */
  heartbeatMs: number;
}

export const CHAT_VARIABLES = [
  'CHAT_ENABLED',
  'CHAT_VOICE_TRANSCRIPTION',
  'CHAT_AI_TRANSLATION',
  'CHAT_EXTERNAL_BRIDGES',
  'CHAT_WEBSOCKET_URL',
  'CHAT_MAX_MESSAGE_SIZE',
  'CHAT_MESSAGE_RETENTION_DAYS',
  'CHAT_INCIDENT_AUTO_RESOLVE_HOURS',
  'CHAT_WORKER',
  'CHAT_SWEEP_INTERVAL_MS',
  'CHAT_AUTH_TIMEOUT_MS',
  'CHAT_PRESENCE_GRACE_MS',
  'CHAT_HEARTBEAT_MS',
] as const;

export const DEFAULT_CHAT_CONFIG: ChatConfig = {
  flags: { enabled: true, voice_transcription: true, ai_translation: true, external_bridges: false },
  websocketUrl: undefined,
  maxMessageBytes: 65_536,
  retentionDays: 365,
  incidentAutoResolveHours: 24,
  runWorker: true,
  sweepIntervalMs: 3_600_000,
  authTimeoutMs: 5_000,
  presenceGraceMs: 15_000,
  heartbeatMs: 30_000,
};

function websocketUrl(env: Env) {
  const raw = env.CHAT_WEBSOCKET_URL;
  if (raw === undefined || raw === '') return undefined;
  if (!/^wss?:\/\/[^\s/]+(\/\S*)?$/.test(raw))
    throw new ConfigError(`CHAT_WEBSOCKET_URL must be a ws:// or wss:// URL, got "${raw}"`);
  return raw;
}

export function loadChatConfig(env: Env): ChatConfig {
  const d = DEFAULT_CHAT_CONFIG;
  return {
    flags: {
      enabled: flag(env, 'CHAT_ENABLED', d.flags.enabled),
      voice_transcription: flag(env, 'CHAT_VOICE_TRANSCRIPTION', d.flags.voice_transcription),
      ai_translation: flag(env, 'CHAT_AI_TRANSLATION', d.flags.ai_translation),
      external_bridges: flag(env, 'CHAT_EXTERNAL_BRIDGES', d.flags.external_bridges),
    },
    websocketUrl: websocketUrl(env),
    // Up to 16 MiB: the route's body limit and the database's text columns stay reasonable.
    maxMessageBytes: integer(env, 'CHAT_MAX_MESSAGE_SIZE', d.maxMessageBytes, 1, 16 * 1024 * 1024),
    retentionDays: integer(env, 'CHAT_MESSAGE_RETENTION_DAYS', d.retentionDays, 1, 36_500),
    incidentAutoResolveHours: integer(
      env,
      'CHAT_INCIDENT_AUTO_RESOLVE_HOURS',
      d.incidentAutoResolveHours,
      1,
      24 * 365,
    ),
    runWorker: flag(env, 'CHAT_WORKER', d.runWorker),
    sweepIntervalMs: integer(env, 'CHAT_SWEEP_INTERVAL_MS', d.sweepIntervalMs, 1000, 86_400_000),
    authTimeoutMs: integer(env, 'CHAT_AUTH_TIMEOUT_MS', d.authTimeoutMs, 100, 120_000),
    presenceGraceMs: integer(env, 'CHAT_PRESENCE_GRACE_MS', d.presenceGraceMs, 0, 600_000),
    heartbeatMs: integer(env, 'CHAT_HEARTBEAT_MS', d.heartbeatMs, 1000, 600_000),
  };
}
