/**
 * An order's payment state in a word, from its payments. The order list does not carry payments,
 * so the list reads each shown order's detail, a few at a time, and remembers it per version.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Tone } from '../../components/ui.tsx';
import { getOrder, type Order, type Payment, toMinor } from './api.ts';

export interface PaymentState {
  label: string;
  tone: Tone;
}

export function paymentStateOf(order: Order, payments: Payment[]): PaymentState {
  const captured = payments.filter((p) => p.status === 'captured');
  const paid = captured.reduce((sum, p) => sum + toMinor(p.amount), 0);
  const refunded = captured.reduce((sum, p) => sum + toMinor(p.refunded), 0);
  if (paid > 0 && refunded >= paid) return { label: 'Refunded', tone: 'neutral' };
  if (refunded > 0) return { label: 'Partly refunded', tone: 'warn' };
  if (paid > 0 && paid >= toMinor(order.total)) return { label: 'Paid', tone: 'ok' };
  if (paid > 0) return { label: 'Partly paid', tone: 'warn' };
  if (payments.some((p) => p.status === 'authorized')) return { label: 'Authorized', tone: 'info' };
  if (payments.some((p) => p.status === 'failed')) return { label: 'Payment failed', tone: 'bad' };
  if (order.status === 'cancelled') return { label: 'Not paid', tone: 'neutral' };
  return { label: 'Unpaid', tone: 'warn' };
}

/** A refund changes a payment, not its order's version: a remembered state lasts a minute only. */
const cache = new Map<string, { state: PaymentState; at: number }>();
const CACHE_MS = 60_000;
const keyOf = (order: Order) => `${order.id}@${order.version}`;
const CONCURRENCY = 4;

function cached(order: Order) {
  const hit = cache.get(keyOf(order));
  return hit && Date.now() - hit.at < CACHE_MS ? hit.state : undefined;
}

/** Payment states of the orders shown, keyed by order id; missing while their detail loads. */
export function usePaymentStates(orders: Order[] | undefined): Map<string, PaymentState | 'error'> {
  const [states, setStates] = useState(new Map<string, PaymentState | 'error'>());
  useEffect(() => {
    if (!orders) return;
    const controller = new AbortController();
    const known = new Map<string, PaymentState | 'error'>();
    for (const order of orders) {
      const state = cached(order);
      if (state) known.set(order.id, state);
    }
    setStates(known);
    const queue = orders.filter((order) => !known.has(order.id));
    const worker = async () => {
      for (let order = queue.shift(); order; order = queue.shift()) {
        const state = await loadState(order, controller.signal);
        if (controller.signal.aborted) return;
        setStates((before) => new Map(before).set(order.id, state));
      }
    };
    for (let i = 0; i < CONCURRENCY; i += 1) void worker();
    return () => controller.abort();
  }, [orders]);
  return states;
}

async function loadState(order: Order, signal: AbortSignal): Promise<PaymentState | 'error'> {
  try {
    const detail = await getOrder(order.id, signal);
    const state = paymentStateOf(detail, detail.payments);
    cache.set(keyOf(order), { state, at: Date.now() });
    return state;
  } catch {
    return 'error';
  }
}
