import { ageLevel, formatAge, formatMoney, secondsSince } from '../../lib/format.ts';
import type { OrderCardView } from '../../lib/orders.ts';

const TYPE_LABELS: Record<string, string> = {
  dine_in: 'Dine in',
  takeout: 'Takeout',
  drive_thru: 'Drive-thru',
  delivery: 'Delivery',
};

const STATE_LABELS = { new: 'not sent', cooking: 'cooking', done: 'done' } as const;

export function OrderCard(props: { view: OrderCardView; now: number; currency: string }) {
  const { order, items, since, rush } = props.view;
  const age = secondsSince(since, props.now);
  const level = ageLevel(age);
  return (
    <article
      class={`order-card age-${level} ${rush ? 'rush' : ''}`}
      data-testid="order-card"
      data-order-id={order.id}
      aria-label={`Order ${order.number}, ${order.status}, waiting ${formatAge(age)}`}
    >
      <header class="order-head">
        <span class="order-number">#{order.number}</span>
        <span class={`age age-${level}`} data-testid="order-age">
          {formatAge(age)}
        </span>
      </header>
      <div class="order-meta">
        <span>{TYPE_LABELS[order.order_type] ?? order.order_type}</span>
        {order.table && <span>Table {order.table}</span>}
        <span class={`status-chip ${order.status}`}>{order.status}</span>
        {rush && <span class="status-chip rush">rush</span>}
      </div>
      <ul class="order-items">
        {items.map((item) => (
          <li key={item.id} class={`item-${item.state}`}>
            <span class="qty">{item.quantity}×</span>
            <span class="item-name">{item.name}</span>
            <span class={`item-state ${item.state}`}>{STATE_LABELS[item.state]}</span>
          </li>
        ))}
      </ul>
      <footer class="order-foot">{formatMoney(order.total, props.currency)}</footer>
    </article>
  );
}
