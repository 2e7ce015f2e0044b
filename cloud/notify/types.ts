/** The notify contract's types (cloud/notify/index.ts re-exports them). */
import type { Person } from '../oncall/index.ts';

export const NOTIFICATION_CHANNELS = ['voice', 'sms', 'email', 'team_chat', 'push', 'console'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];
export type Severity = 'P1' | 'P2' | 'P3' | 'P4' | 'P5';

export interface NotificationRequest {
  channel: NotificationChannel;
  recipient: Person | null;
  subject: string;
  text: string;
  severity: Severity;
  alert_id: string | null;
  dedupe_key: string;
}
