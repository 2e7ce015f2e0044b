/**
 * The chat module's settings (chat limits, environment variables and feature flags). Only
 * this file reads the CHAT_* variables; cloud/config.ts calls it once at start-up.
 */

import { type Settings, settingNames } from '../../shared/config/settings.ts';
import { type Env, read } from '../config-env.ts';
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

const d = DEFAULT_CHAT_CONFIG;

const on = (name: string, fallback: boolean, description: string) =>
  ({ name, type: 'flag', default: fallback, description }) as const;
const integer = (name: string, fallback: number, min: number, max: number, description: string) =>
  ({ name, type: 'integer', default: fallback, min, max, description }) as const;

export const CHAT_SETTINGS = {
  enabled: on('CHAT_ENABLED', d.flags.enabled, 'feature flag `chat.enabled`'),
  voiceTranscription: on(
    'CHAT_VOICE_TRANSCRIPTION',
    d.flags.voice_transcription,
    'feature flag `chat.voice_transcription` (told to clients)',
  ),
  aiTranslation: on(
    'CHAT_AI_TRANSLATION',
    d.flags.ai_translation,
    'feature flag `chat.ai_translation` (told to clients)',
  ),
  externalBridges: on(
    'CHAT_EXTERNAL_BRIDGES',
    d.flags.external_bridges,
    'feature flag `chat.external_bridges` (told to clients)',
  ),
  websocketUrl: {
    name: 'CHAT_WEBSOCKET_URL',
    type: 'text',
    default: undefined,
    defaultText: '`ws(s)://<request host>/api/v1/chat/ws`',
    format: 'a ws:// or wss:// URL',
    description: "the chat WebSocket's address that `/config` tells clients",
  },
  // Up to 16 MiB: the route's body limit and the database's text columns stay reasonable.
  maxMessageBytes: integer(
    'CHAT_MAX_MESSAGE_SIZE',
    d.maxMessageBytes,
    1,
    16 * 1024 * 1024,
    'bytes of UTF-8 per message',
  ),
  retentionDays: integer('CHAT_MESSAGE_RETENTION_DAYS', d.retentionDays, 1, 36_500, 'days messages are kept'),
  incidentAutoResolveHours: integer(
    'CHAT_INCIDENT_AUTO_RESOLVE_HOURS',
    d.incidentAutoResolveHours,
    1,
    24 * 365,
    'hours after which a quiet incident is resolved by the incident flow; shown in `/config`',
  ),
  runWorker: on('CHAT_WORKER', d.runWorker, 'run the retention sweeper in this process'),
  sweepIntervalMs: integer(
    'CHAT_SWEEP_INTERVAL_MS',
    d.sweepIntervalMs,
    1000,
    86_400_000,
    'how often (ms) the retention sweeper runs',
  ),
  authTimeoutMs: integer(
    'CHAT_AUTH_TIMEOUT_MS',
    d.authTimeoutMs,
    100,
    120_000,
    'how long (ms) a WebSocket may wait for its auth frame (closed with 4408 after)',
  ),
  presenceGraceMs: integer(
    'CHAT_PRESENCE_GRACE_MS',
    d.presenceGraceMs,
    0,
    600_000,
    'how long (ms) a user with no open connection still shows as online (a reconnect never flaps)',
  ),
  heartbeatMs: integer(
    'CHAT_HEARTBEAT_MS',
    d.heartbeatMs,
    1000,
    600_000,
    'ping period (ms); a connection that has not answered the previous ping is dropped',
  ),
} as const satisfies Settings;

/** Every variable loadChatConfig reads. */
export const CHAT_VARIABLES = settingNames(CHAT_SETTINGS);

function websocketUrl(env: Env) {
  const raw = read(env, CHAT_SETTINGS.websocketUrl);
  if (raw === undefined) return undefined;
  if (!/^wss?:\/\/[^\s/]+(\/\S*)?$/.test(raw))
    throw new ConfigError(`CHAT_WEBSOCKET_URL must be a ws:// or wss:// URL, got "${raw}"`);
  return raw;
}

export function loadChatConfig(env: Env): ChatConfig {
  const s = CHAT_SETTINGS;
  return {
    flags: {
      enabled: read(env, s.enabled),
      voice_transcription: read(env, s.voiceTranscription),
      ai_translation: read(env, s.aiTranslation),
      external_bridges: read(env, s.externalBridges),
    },
    websocketUrl: websocketUrl(env),
    maxMessageBytes: read(env, s.maxMessageBytes),
    retentionDays: read(env, s.retentionDays),
    incidentAutoResolveHours: read(env, s.incidentAutoResolveHours),
    runWorker: read(env, s.runWorker),
    sweepIntervalMs: read(env, s.sweepIntervalMs),
    authTimeoutMs: read(env, s.authTimeoutMs),
    presenceGraceMs: read(env, s.presenceGraceMs),
    heartbeatMs: read(env, s.heartbeatMs),
  };
}
