/** Notifications: alert messages out by voice, SMS, email, team chat, push and the console feed. */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { ConsoleFeed } from '../cockpit/feed.ts';
import type { Db, Store } from '../db/index.ts';
import type { Person } from '../oncall/index.ts';
import type { NotifyConfig } from './config.ts';

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

export interface NotifyDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: NotifyConfig;
  consoleFeed: ConsoleFeed;
  fetch?: typeof fetch;
}

export function createNotifyService(_deps: NotifyDeps) {
  return {
    async enqueue(_db: Db, _tenantId: string, _requests: NotificationRequest[]): Promise<void> {},
    start() {},
    async close() {},
  };
}

export type NotifyService = ReturnType<typeof createNotifyService>;

export async function notifyRoutes(_app: FastifyInstance, _options: { notify: NotifyService }) {}
