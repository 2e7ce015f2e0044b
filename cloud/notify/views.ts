/** Rows to API shapes, and back: JSON columns and defaults are handled here only. */
import type { Person } from '../oncall/index.ts';
import type { NotificationAttemptRow, NotificationRow, NotificationSettingsRow } from './tables.ts';
import { NOTIFICATION_CHANNELS, type NotificationChannel, type Severity } from './types.ts';

export interface TenantSettings {
  team_chat_webhook_url: string | null;
  email_from: string | null;
  enabled_channels: NotificationChannel[];
  updated_at: string | null;
}

export const DEFAULT_SETTINGS: TenantSettings = {
  team_chat_webhook_url: null,
  email_from: null,
  enabled_channels: [...NOTIFICATION_CHANNELS],
  updated_at: null,
};

export const parsePerson = (raw: string | null): Person | null =>
  raw === null ? null : (JSON.parse(raw) as Person);

export function toSettings(row: NotificationSettingsRow | undefined): TenantSettings {
  if (!row) return DEFAULT_SETTINGS;
  return {
    team_chat_webhook_url: row.team_chat_webhook_url,
    email_from: row.email_from,
    enabled_channels: JSON.parse(row.enabled_channels) as NotificationChannel[],
    updated_at: row.updated_at,
  };
}

export const toAttempt = (row: NotificationAttemptRow) => ({
  attempt: row.attempt,
  channel: row.channel as NotificationChannel,
  outcome: row.outcome,
  provider_status: row.provider_status,
  provider_answer: row.provider_answer,
  error: row.error,
  started_at: row.started_at,
  finished_at: row.finished_at,
  duration_ms: row.duration_ms,
});

export type NotificationView = ReturnType<typeof toNotification>;

export function toNotification(row: NotificationRow, attempts: NotificationAttemptRow[]) {
  return {
    id: row.id,
    alert_id: row.alert_id,
    channel: row.channel as NotificationChannel,
    recipient: parsePerson(row.recipient),
    subject: row.subject,
    text: row.text,
    severity: row.severity as Severity,
    dedupe_key: row.dedupe_key,
    status: row.status,
    attempt_count: row.attempts,
    max_attempts: row.max_attempts,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    last_error: row.last_error,
    provider_ref: row.provider_ref,
    created_at: row.created_at,
    updated_at: row.updated_at,
    delivered_at: row.delivered_at,
    attempts: attempts.map(toAttempt),
  };
}
