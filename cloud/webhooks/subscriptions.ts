import { randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import { checkWebhookUrl } from './address-guard.ts';
import { invalidEventPatterns, type WebhookInterface } from './catalog.ts';
import { invalidEvents, invalidField, invalidUrl, urlAlreadyExists, webhookNotFound } from './errors.ts';
import { SUBSCRIPTION_SCHEDULE_SECONDS } from './schedule.ts';
import { deliveries, logs, subscriptions } from './store.ts';
import type { Backoff, WebhookSubscriptionRow } from './tables.ts';

export interface WebhookSettingsInput {
  timeout_seconds?: number;
  retry_policy?: { max_attempts?: number; backoff?: Backoff };
  batch_events?: boolean;
  max_per_second?: number | null;
  max_in_flight?: number;
}

export interface SubscriptionInput {
  url: string;
  events?: string[] | undefined;
  secret?: string | undefined;
  description?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  headers?: Record<string, string> | undefined;
  settings?: WebhookSettingsInput | undefined;
}

export type SubscriptionPatchInput = Partial<Omit<SubscriptionInput, 'secret'>>;

export interface SubscriptionDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  allowPrivateUrls: boolean;
  /** How long a rotated-out secret keeps signing. */
  rotationGraceSeconds: number;
}

const DEFAULT_TIMEOUT_SECONDS = 30;
const DEFAULT_ADMIN_ATTEMPTS = 5;

/** `whsec_` and 32 random bytes: what a receiver pastes into its verifier. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;
/** Names the secret in use (it changes with every rotation) without revealing it. */
const newSigningKey = () => `whkey_${randomBytes(12).toString('hex')}`;

// Headers the delivery itself defines: a subscription could otherwise forge our signature or
// break the request.
const RESERVED_HEADER =
  /^(content-type|content-length|host|user-agent|transfer-encoding|connection|x-service-.*)$/i;

function checkHeaders(headers: Record<string, string>) {
  const reserved = Object.keys(headers).filter((name) => RESERVED_HEADER.test(name));
  if (reserved.length > 0) throw invalidField('body.headers', `cannot set ${reserved.join(', ')}`);
  if (Object.values(headers).some((value) => /[\r\n]/.test(value)))
    throw invalidField('body.headers', 'values cannot contain line breaks');
  return JSON.stringify(headers);
}

export function createSubscriptions(deps: SubscriptionDeps) {
  const { store, clock, newId } = deps;
  const db = store.db;

  function checkUrl(url: string) {
    const checked = checkWebhookUrl(url, { allowPrivate: deps.allowPrivateUrls });
    if (!checked.ok) throw invalidUrl(checked.reason);
    return checked.url.toString();
  }

  function checkEvents(iface: WebhookInterface, events: string[]) {
    const invalid = events.length === 0 ? ['(empty list)'] : invalidEventPatterns(iface, events);
    if (invalid.length > 0) throw invalidEvents(invalid);
    return JSON.stringify([...new Set(events)]);
  }

  function settingsColumns(
    iface: WebhookInterface,
    settings: WebhookSettingsInput,
    row?: WebhookSubscriptionRow,
  ) {
    return {
      timeout_seconds: settings.timeout_seconds ?? row?.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
      // The subscription interface's schedule is fixed by the API: seven attempts.
      max_attempts:
        iface === 'subscription'
          ? SUBSCRIPTION_SCHEDULE_SECONDS.length
          : (settings.retry_policy?.max_attempts ?? row?.max_attempts ?? DEFAULT_ADMIN_ATTEMPTS),
      backoff: settings.retry_policy?.backoff ?? row?.backoff ?? 'exponential',
      batch_events:
        settings.batch_events === undefined ? (row?.batch_events ?? 0) : Number(settings.batch_events),
      max_per_second:
        settings.max_per_second === undefined ? (row?.max_per_second ?? null) : settings.max_per_second,
      max_in_flight: settings.max_in_flight ?? row?.max_in_flight ?? 1,
    };
  }

  async function write<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (store.isUniqueViolation(error)) throw urlAlreadyExists();
      throw error;
    }
  }

  async function log(tenantId: string, webhookId: string, message: string, details?: object) {
    await logs.insert(db, {
      id: newId(),
      tenant_id: tenantId,
      webhook_id: webhookId,
      at: clock.now().toISOString(),
      level: 'info',
      message,
      delivery_id: null,
      event: null,
      details: details ? JSON.stringify(details) : null,
    });
  }

  async function get(tenantId: string, iface: WebhookInterface, id: string) {
    const row = await subscriptions.get(db, tenantId, iface, id);
    if (!row) throw webhookNotFound();
    return row;
  }

  return {
    get,
    log,

    async list(tenantId: string, iface: WebhookInterface, page: { limit: number; offset: number }) {
      const [rows, total] = await Promise.all([
        subscriptions.list(db, tenantId, iface, page),
        subscriptions.count(db, tenantId, iface),
      ]);
      return { rows, total };
    },

    async create(tenantId: string, iface: WebhookInterface, input: SubscriptionInput) {
      const now = clock.now().toISOString();
      const row: WebhookSubscriptionRow = {
        id: newId(),
        tenant_id: tenantId,
        interface: iface,
        url: checkUrl(input.url),
        description: input.description ?? '',
        events: checkEvents(iface, input.events ?? ['*']),
        secret: input.secret ?? newSecret(),
        signing_key: newSigningKey(),
        previous_secret: null,
        previous_secret_valid_until: null,
        headers: checkHeaders(input.headers ?? {}),
        metadata: JSON.stringify(input.metadata ?? {}),
        ...settingsColumns(iface, input.settings ?? {}),
        status: 'active',
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
        last_delivery_at: null,
        last_success_at: null,
        last_failure_at: null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      };
      await write(() => subscriptions.insert(db, row));
      await log(tenantId, row.id, 'webhook created', { url: row.url, events: JSON.parse(row.events) });
      return row;
    },

    async update(tenantId: string, iface: WebhookInterface, id: string, patch: SubscriptionPatchInput) {
      const row = await get(tenantId, iface, id);
      const changes = {
        ...(patch.url !== undefined ? { url: checkUrl(patch.url) } : {}),
        ...(patch.events !== undefined ? { events: checkEvents(iface, patch.events) } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.metadata !== undefined ? { metadata: JSON.stringify(patch.metadata) } : {}),
        ...(patch.headers !== undefined ? { headers: checkHeaders(patch.headers) } : {}),
        ...(patch.settings !== undefined ? settingsColumns(iface, patch.settings, row) : {}),
        updated_at: clock.now().toISOString(),
      };
      await write(() => subscriptions.update(db, tenantId, id, changes));
      await log(tenantId, id, 'webhook updated', { fields: Object.keys(patch) });
      return { ...row, ...changes };
    },

    /** Deleted: it stops receiving and sending at once; its history stays for the record. */
    async remove(tenantId: string, iface: WebhookInterface, id: string) {
      await get(tenantId, iface, id);
      const now = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        await subscriptions.update(trx, tenantId, id, { deleted_at: now, updated_at: now });
        await deliveries.cancelPending(trx, tenantId, id, 'the webhook was deleted');
      });
    },

    async rotateSecret(tenantId: string, iface: WebhookInterface, id: string) {
      const row = await get(tenantId, iface, id);
      const now = clock.now();
      const validUntil = new Date(now.getTime() + deps.rotationGraceSeconds * 1000).toISOString();
      const secret = newSecret();
      await subscriptions.update(db, tenantId, id, {
        secret,
        signing_key: newSigningKey(),
        previous_secret: row.secret,
        previous_secret_valid_until: validUntil,
        updated_at: now.toISOString(),
      });
      await log(tenantId, id, 'secret rotated', { old_secret_valid_until: validUntil });
      return { id, new_secret: secret, old_secret_valid_until: validUntil, rotated_at: now.toISOString() };
    },
  };
}

export type Subscriptions = ReturnType<typeof createSubscriptions>;
