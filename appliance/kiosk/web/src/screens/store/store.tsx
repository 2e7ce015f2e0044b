/**
 * The Store screen: open orders with their kitchen state and running ages, and today's sales
 * against the same weekday last week. Orders and tickets are read once and then kept current
 * from the feed's order and kds events; sales are read every minute and after a sale.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLoad, useNow, useThrottled } from '../../hooks.ts';
import {
  applyOrderEvent,
  applyTicket,
  type Order,
  type Orders,
  orderCards,
  pruneTickets,
  type Ticket,
  type Tickets,
} from '../../lib/orders.ts';
import { api } from '../../session.ts';
import { rememberOrderNumbers, type Session, useEvents } from '../../store.ts';
import type { Page, SalesToday } from '../../types.ts';
import { OrderCard } from './order-card.tsx';
import { SalesPanel } from './sales.tsx';
import './store.css';

/** The open orders: a store has far fewer than a page of 200 open at once. */
async function loadOrders(): Promise<Orders> {
  const page = await api.get<Page<Order>>(
    '/v1/commerce/orders?status=open&status=sent&status=ready&limit=200',
  );
  const list = page.items;
  rememberOrderNumbers(list);
  return Object.fromEntries(list.map((order) => [order.id, order]));
}

async function loadTickets(): Promise<Tickets> {
  const stations = await api.get<Array<{ id: string }>>('/v1/commerce/kds/stations');
  const boards = await Promise.all(
    stations.map((s) => api.get<Ticket[]>(`/v1/commerce/kds/stations/${s.id}/tickets`)),
  );
  return Object.fromEntries(boards.flat().map((t) => [t.id, t]));
}

/** Marked once per sign-in, when the screen first shows real figures (sign-in → first render). */
let markedFor: string | undefined;

export function StoreScreen(props: { session: Session }) {
  const now = useNow(1000);
  const [orders, setOrders] = useState<Orders>();
  const [tickets, setTickets] = useState<Tickets>({});
  const [error, setError] = useState<string>();
  const sales = useLoad(() => api.get<SalesToday>('/v1/commerce/sales/today'), [], 60_000);
  // Order events heard before the first read answers: applied to it, not lost.
  const early = useRef<unknown[]>([]);

  const reload = () => {
    Promise.all([loadOrders(), loadTickets().catch(() => ({}))])
      .then(([o, t]) => {
        setOrders(early.current.reduce<Orders>((current, data) => applyOrderEvent(current, data), o));
        early.current = [];
        setTickets(pruneTickets(t, o));
        setError(undefined);
      })
      .catch((e: Error) => setError(e.message));
  };

  useEffect(() => {
    reload();
    const timer = setInterval(reload, 60_000);
    return () => clearInterval(timer);
  }, []);

  const refreshSales = useThrottled(sales.reload, 2000);
  useEvents(['order.', 'kds.', 'payment.'], (event) => {
    if (event.type.startsWith('order.')) {
      setOrders((current) => {
        if (current) return applyOrderEvent(current, event.data);
        early.current.push(event.data);
        return current;
      });
      if (event.type === 'order.completed' || event.type === 'order.cancelled') refreshSales();
    } else if (event.type.startsWith('kds.')) {
      setTickets((current) => applyTicket(current, event.data as Ticket));
    } else refreshSales();
  });

  const cards = useMemo(() => (orders ? orderCards(orders, tickets) : []), [orders, tickets]);
  const ready = orders !== undefined && (sales.data !== undefined || sales.error !== undefined);
  useEffect(() => {
    if (ready && markedFor !== props.session.token) {
      markedFor = props.session.token;
      performance.mark('kiosk:first-render');
    }
  }, [ready, props.session.token]);

  const currency = sales.data?.currency ?? 'USD';
  return (
    <div class="store-screen">
      <SalesPanel sales={sales.data} error={sales.error} />
      <section aria-label="Open orders" class="orders-section">
        <h2>
          Open orders <span class="count">{orders ? cards.length : ''}</span>
        </h2>
        {error && (
          <p class="error-text" role="alert">
            Orders could not be read: {error}
          </p>
        )}
        {orders && cards.length === 0 && <p class="empty">No open orders.</p>}
        <div class="order-grid">
          {cards.map((view) => (
            <OrderCard key={view.order.id} view={view} now={now} currency={currency} />
          ))}
        </div>
      </section>
    </div>
  );
}
