/** What every channel adapter implements: one send, answering what happened in the worker's terms. */
import type { Person } from '../../oncall/index.ts';
import type { NotificationChannel, Severity } from '../types.ts';

export interface OutgoingNotification {
  id: string;
  tenantId: string;
  channel: NotificationChannel;
  recipient: Person | null;
  subject: string;
  text: string;
  severity: Severity;
  alertId: string | null;
  attempt: number;
}

/** The tenant's settings as a send needs them. */
export interface SendContext {
  teamChatWebhookUrl: string | null;
  emailFrom: string | null;
  signal: AbortSignal;
}

interface ProviderAnswer {
  providerStatus?: number | undefined;
  providerAnswer?: string | undefined;
}

/**
 * delivered: the provider accepted the message. retry: worth trying again after the back-off
 * (timeouts, connection errors, 5xx, 408, 429). failed: trying again would fail the same way (other
 * 4xx, a refused address). skipped: nothing was sent (channel not configured, no address).
 */
export type SendResult =
  | ({ outcome: 'delivered'; providerRef?: string | undefined } & ProviderAnswer)
  | ({ outcome: 'retry' | 'failed' | 'skipped'; error: string } & ProviderAnswer);

export interface ChannelAdapter {
  readonly channel: NotificationChannel;
  send(notification: OutgoingNotification, context: SendContext): Promise<SendResult>;
  close?(): Promise<void>;
}

export const skipped = (error: string): SendResult => ({ outcome: 'skipped', error });

/** How an HTTP status reads for a retry decision. */
export function byStatus(status: number, answer: string): SendResult {
  if (status >= 200 && status < 300)
    return { outcome: 'delivered', providerStatus: status, providerAnswer: answer };
  const retry = status >= 500 || status === 408 || status === 429;
  return {
    outcome: retry ? 'retry' : 'failed',
    error: `the provider answered ${status}`,
    providerStatus: status,
    providerAnswer: answer,
  };
}

export const ANSWER_MAX = 2000;
