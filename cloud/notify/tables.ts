/** The notify module's tables: the outbox, each attempt's outcome, and per-tenant settings. */
export const NOTIFICATION_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/**
 * delivered: the provider took it. retry: a passing failure, tried again after the back-off.
 * failed: a final failure (a 4xx, or the last attempt). skipped: the channel or the recipient's
 * address is missing, so nothing was sent. interrupted: the worker died mid-attempt.
 */
export const ATTEMPT_OUTCOMES = [
  'in_flight',
  'delivered',
  'retry',
  'failed',
  'skipped',
  'interrupted',
] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface NotificationRow {
  id: string;
  tenant_id: string;
  alert_id: string | null;
  channel: string;
  /** JSON Person, or null for team chat and the console. */
  recipient: string | null;
  subject: string;
  text: string;
  severity: string;
  dedupe_key: string;
  status: NotificationStatus;
  /** Attempts started so far. */
  attempts: number;
  max_attempts: number;
  /** Pending: when the next attempt may start; while claimed, when the claim lapses (the lease). */
  next_attempt_at: string | null;
  /** The worker holding the claim, until next_attempt_at. */
  lease_owner: string | null;
  last_error: string | null;
  /** The provider's id for the delivered message (SMTP Message-ID answer, SMS sid...). */
  provider_ref: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export interface NotificationAttemptRow {
  id: string;
  tenant_id: string;
  notification_id: string;
  attempt: number;
  channel: string;
  outcome: AttemptOutcome;
  /** The provider's HTTP status or SMTP reply code. */
  provider_status: number | null;
  /** The head of the provider's answer. */
  provider_answer: string | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
}

export interface NotificationSettingsRow {
  tenant_id: string;
  team_chat_webhook_url: string | null;
  email_from: string | null;
  /** JSON array of channel names this tenant is notified on. */
  enabled_channels: string;
  updated_at: string;
}

export interface NotifyTables {
  notifications: NotificationRow;
  notification_attempts: NotificationAttemptRow;
  notification_settings: NotificationSettingsRow;
}
