/** The commerce API's orders and payments, and the stores they belong to, as the console reads them. */
import { query } from '../../api.ts';
import { api } from '../../session.ts';

export const ORDER_STATUSES = ['open', 'sent', 'ready', 'completed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const STATUS_LABELS: Record<OrderStatus, string> = {
  open: 'Open',
  sent: 'Sent to kitchen',
  ready: 'Ready',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

export const ORDER_TYPE_LABELS: Record<string, string> = {
  dine_in: 'Dine in',
  takeout: 'Takeout',
  drive_thru: 'Drive-thru',
  delivery: 'Delivery',
};

/** The store's own rule: an order that is completed or cancelled cannot be voided. */
export const VOIDABLE: readonly string[] = ['open', 'sent', 'ready'];

export interface Location {
  id: string;
  brand_id: string;
  name: string;
  timezone: string;
  status: 'active' | 'inactive';
}

export interface OrderLine {
  id: string;
  name: string;
  quantity: number;
  unit_price: number;
  total: number;
  modifiers: string[];
  notes: string | null;
  status: 'pending' | 'sent' | 'complete';
}

export interface Order {
  id: string;
  location_id: string;
  number: string;
  business_day: string;
  order_type: string;
  status: OrderStatus;
  table: string | null;
  server: { id: string; name: string } | null;
  items: OrderLine[];
  subtotal: number;
  tax: number;
  total: number;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface Payment {
  id: string;
  location_id: string;
  order_id: string;
  method: 'card' | 'cash';
  status: 'authorized' | 'captured' | 'voided' | 'failed';
  amount: number;
  tip: number;
  total: number;
  refunded: number;
  card: { brand: string; last4: string } | null;
  transaction_id: string | null;
  failure_reason: string | null;
  created_at: string;
  version: number;
}

export type OrderWithPayments = Order & { payments: Payment[] };

export interface OrderFilters {
  store?: string;
  day?: string;
  status?: string;
  number?: string;
  cursor?: string;
}

export const PAGE_SIZE = 25;

export function listOrders(filters: OrderFilters, signal: AbortSignal) {
  const path = `/v1/commerce/orders${query({
    location_id: filters.store,
    business_day: filters.day,
    status: filters.status,
    number: filters.number,
    cursor: filters.cursor,
    limit: PAGE_SIZE,
  })}`;
  return api.data<{ items: Order[]; next_cursor: string | null }>(path, signal);
}

export const getOrder = (id: string, signal?: AbortSignal) =>
  api.data<OrderWithPayments>(`/v1/commerce/orders/${encodeURIComponent(id)}`, signal);

export const getLocation = (id: string, signal?: AbortSignal) =>
  api.data<Location>(`/v1/platform/locations/${encodeURIComponent(id)}`, signal);

export const cancelOrder = (id: string) =>
  api.post<{ data: OrderWithPayments }>(`/v1/commerce/orders/${encodeURIComponent(id)}/cancel`, {});

export const refundPayment = (id: string, amountMinor: number) =>
  api.post<{ data: Payment }>(`/v1/commerce/payments/${encodeURIComponent(id)}/refund`, {
    amount_minor: amountMinor,
  });

/**
 * Every location of the tenant. The list answers no next_cursor: a full page means there may be
 * more, and the next page starts after the last id.
 */
export async function listAllLocations(signal: AbortSignal): Promise<Location[]> {
  const all: Location[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 25; page += 1) {
    const batch = await api.data<Location[]>(
      `/v1/platform/locations${query({ limit: 200, cursor })}`,
      signal,
    );
    all.push(...batch);
    if (batch.length < 200) break;
    cursor = batch[batch.length - 1]?.id;
  }
  return all.sort((a, b) => a.name.localeCompare(b.name));
}

/** What is left to give back: the store refunds the amount paid, never the tip. */
export const refundableOf = (payment: Payment) =>
  payment.status === 'captured' ? Math.max(0, toMinor(payment.amount) - toMinor(payment.refunded)) : 0;

export const toMinor = (amount: number) => Math.round(amount * 100);
