/** Enqueueing, reading and configuring notifications; the worker does the sending. */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { ConsoleFeed } from '../cockpit/index.ts';
import type { Db, Store } from '../db/index.ts';
import type { Person } from '../oncall/index.ts';
import { checkWebhookUrl } from '../webhooks/index.ts';
import { createChannelRegistry } from './channels/registry.ts';
import type { NotifyConfig } from './config.ts';
import { badWebhookUrl, notificationNotFound } from './errors.ts';
import type { NotificationSettingsBody } from './schemas.ts';
import * as notifyStore from './store.ts';
import type { NotificationRow } from './tables.ts';
import { NOTIFICATION_CHANNELS, type NotificationRequest } from './types.ts';
import { DEFAULT_SETTINGS, toNotification, toSettings } from './views.ts';
import { validCallbackToken } from './voice-callback.ts';
import { createNotifyWorker } from './worker.ts';

export interface NotifyDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: NotifyConfig;
  consoleFeed: ConsoleFeed;
  fetch?: typeof fetch;
}

const MAX_KEY = 200;

function checkRequest(request: NotificationRequest) {
  if (!NOTIFICATION_CHANNELS.includes(request.channel)) throw new Error(`unknown channel ${request.channel}`);
  if (!request.dedupe_key || request.dedupe_key.length > MAX_KEY) {
    throw new Error(`dedupe_key must be 1 to ${MAX_KEY} characters`);
  }
}

export function createNotifyService(deps: NotifyDeps) {
  const { store, clock, options } = deps;
  const settings = async (tenantId: string) => toSettings(await notifyStore.settings(store.db, tenantId));
  const channels = createChannelRegistry(options, {
    fetch: deps.fetch ?? fetch,
    consoleFeed: deps.consoleFeed,
    now: () => clock.now(),
  });
  const worker = createNotifyWorker({ ...deps, channels, settings });

  function rowFor(tenantId: string, request: NotificationRequest, now: string): NotificationRow {
    checkRequest(request);
    return {
      id: deps.newId(),
      tenant_id: tenantId,
      alert_id: request.alert_id,
      channel: request.channel,
      recipient: request.recipient ? JSON.stringify(request.recipient) : null,
      subject: request.subject,
      text: request.text,
      severity: request.severity,
      dedupe_key: request.dedupe_key,
      status: 'pending',
      attempts: 0,
      max_attempts: options.maxAttempts,
      next_attempt_at: now,
      lease_owner: null,
      last_error: null,
      provider_ref: null,
      created_at: now,
      updated_at: now,
      delivered_at: null,
    };
  }

  async function withAttempts(tenantId: string, rows: NotificationRow[]) {
    const attempts = await notifyStore.attemptsOf(
      store.db,
      tenantId,
      rows.map((row) => row.id),
    );
    return rows.map((row) =>
      toNotification(
        row,
        attempts.filter((attempt) => attempt.notification_id === row.id),
      ),
    );
  }

  return {
    /**
     * Queues the requests in `db` (the caller's transaction commits them with its own work); a
     * dedupe_key the tenant already used is ignored. Answers the ids of the rows queued now.
     * Inside a transaction the worker cannot see the rows before the commit: call wake() after it
     * for the quickest start (the poll finds them within NOTIFY_POLL_MS otherwise).
     */
    async enqueue(db: Db, tenantId: string, requests: NotificationRequest[]): Promise<string[]> {
      const now = clock.now().toISOString();
      const rows = requests.map((request) => rowFor(tenantId, request, now));
      const ids = await notifyStore.insertNew(db, rows);
      if (ids.length > 0) {
        if (db.isTransaction) setTimeout(() => worker.wake(), 5).unref();
        else worker.wake();
      }
      return ids;
    },
    wake: () => worker.wake(),
    start() {
      if (options.runWorker) worker.start();
    },
    /** Tests: sends everything due at the clock's current time, then returns. */
    drain: () => worker.drain(),
    async close() {
      await worker.stop();
      await Promise.all(Object.values(channels).map((channel) => channel.close?.()));
    },

    async list(
      tenantId: string,
      filter: notifyStore.NotificationFilter,
      page: { limit: number; cursor?: string | undefined },
    ) {
      const rows = await notifyStore.notifications(store.db, tenantId, filter, {
        limit: page.limit + 1,
        before: page.cursor,
      });
      const items = await withAttempts(tenantId, rows.slice(0, page.limit));
      return { items, nextCursor: rows.length > page.limit ? (items.at(-1)?.id ?? null) : null };
    },
    /**
     * The voice call a key press answers, once its token checks out: undefined for a bad token, an
     * unknown id or a notification that is not a call (the route answers all three alike).
     */
    async voiceCall(id: string, token: string) {
      if (!options.callbackSecret || !validCallbackToken(options.callbackSecret, id, token)) return undefined;
      const row = await notifyStore.voiceCall(store.db, id);
      if (!row) return undefined;
      return {
        tenantId: row.tenant_id,
        alertId: row.alert_id,
        recipient: row.recipient ? (JSON.parse(row.recipient) as Person) : null,
        text: row.text,
      };
    },
    async get(tenantId: string, id: string) {
      const row = await notifyStore.notification(store.db, tenantId, id);
      if (!row) throw notificationNotFound();
      const [view] = await withAttempts(tenantId, [row]);
      return view!;
    },
    /** Every notification of an alert with its attempts (the contract's delivery outcomes). */
    async deliveries(tenantId: string, filter: { alert_id: string }) {
      const rows = await notifyStore.notifications(
        store.db,
        tenantId,
        { alertId: filter.alert_id },
        { limit: 1000 },
      );
      return withAttempts(tenantId, rows.reverse());
    },

    settings,
    async saveSettings(tenantId: string, body: NotificationSettingsBody) {
      const url = body.team_chat_webhook_url ?? null;
      if (url !== null) {
        const check = checkWebhookUrl(url, { allowPrivate: options.allowPrivateUrls });
        if (!check.ok) throw badWebhookUrl(check.reason);
      }
      const row = await notifyStore.saveSettings(store.db, {
        tenant_id: tenantId,
        team_chat_webhook_url: url,
        email_from: body.email_from ?? null,
        enabled_channels: JSON.stringify(body.enabled_channels ?? DEFAULT_SETTINGS.enabled_channels),
        updated_at: clock.now().toISOString(),
      });
      return toSettings(row);
    },
  };
}

export type NotifyService = ReturnType<typeof createNotifyService>;
