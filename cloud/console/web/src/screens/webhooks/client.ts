/**
 * The two webhook interfaces behind one set of calls. A subscription belongs to the interface it
 * was made on: the subscription interface (/v1/webhooks, `{data}` envelope, cursor pages) or the
 * admin interface (/api/v1/webhooks, bare answers, numbered pages, delivery detail, retry, stats).
 */
import { api } from '../../session.ts';

export type Iface = 'subscription' | 'admin';

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  status: string;
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
  description?: string;
  secret_last4?: string;
  settings?: {
    timeout_seconds: number;
    retry_policy: { max_attempts: number; backoff: string };
    batch_events: boolean;
    max_per_second: number | null;
    max_in_flight: number;
  };
  /** Admin list: the last 24 hours. */
  stats?: {
    deliveries_24h?: number;
    success_rate: number;
    avg_latency_ms: number;
    total_deliveries?: number;
    successful_deliveries?: number;
    failed_deliveries?: number;
    last_delivery?: string | null;
    last_success?: string | null;
    last_failure?: string | null;
  };
}

export interface Rotated {
  new_secret: string;
  old_secret_valid_until: string;
  rotated_at: string;
}

export interface Enabled {
  status: string;
  missed_events: number;
  replayed: number;
}

export interface TestResult {
  delivery_id: string;
  status: string;
  response_code: number | null;
  response_body: string;
  latency_ms: number;
  error: string | null;
}

export const BASE: Record<Iface, string> = { subscription: '/v1/webhooks', admin: '/api/v1/webhooks' };

/** The subscription interface wraps its answers in `{data}`; the admin one answers bare. */
async function unwrap<T>(iface: Iface, answer: Promise<unknown>): Promise<T> {
  const body = await answer;
  return (iface === 'subscription' ? (body as { data: T }).data : body) as T;
}

export const webhookApi = {
  get: (iface: Iface, id: string, signal?: AbortSignal) =>
    unwrap<Webhook>(iface, api.get(`${BASE[iface]}/${encodeURIComponent(id)}`, signal)),
  rotate: (iface: Iface, id: string) =>
    unwrap<Rotated>(iface, api.post(`${BASE[iface]}/${encodeURIComponent(id)}/rotate-secret`, {})),
  enable: (iface: Iface, id: string, replay: boolean) =>
    unwrap<Enabled>(iface, api.post(`${BASE[iface]}/${encodeURIComponent(id)}/enable`, { replay })),
  remove: (iface: Iface, id: string) => api.delete(`${BASE[iface]}/${encodeURIComponent(id)}`),
  test: (iface: Iface, id: string, event: string) =>
    unwrap<TestResult>(
      iface,
      api.post(
        `${BASE[iface]}/${encodeURIComponent(id)}/test`,
        iface === 'subscription' ? { event_type: event } : { event },
      ),
    ),
  create: (iface: Iface, body: Record<string, unknown>) =>
    unwrap<Webhook & { secret?: string; signing_key?: string }>(iface, api.post(BASE[iface], body)),
};

export interface CatalogCategory {
  category: string;
  events: Array<{ name: string; description: string }>;
}

export const loadCatalog = (signal?: AbortSignal) =>
  api.get<{ events: CatalogCategory[] }>('/api/v1/webhooks/events', signal).then((answer) => answer.events);

export const detailHref = (iface: Iface, id: string) =>
  `/webhooks/${encodeURIComponent(id)}${iface === 'subscription' ? '?interface=subscription' : ''}`;

export const statusTone = (status: string) =>
  status === 'active' || status === 'success' ? 'ok' : status === 'pending' ? 'info' : 'bad';
