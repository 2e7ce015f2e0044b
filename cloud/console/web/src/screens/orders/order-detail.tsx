/** One order of any store: header, lines, totals, payments; void and refund from head office. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import { Empty, ErrorNotice, Loading, Page, Pill, Section, Stat } from '../../components/ui.tsx';
import { formatDateTime, formatMoney } from '../../format.ts';
import { useLive, useResource } from '../../hooks.ts';
import { href } from '../../router.ts';
import {
  getLocation,
  getOrder,
  type Location,
  ORDER_TYPE_LABELS,
  type OrderWithPayments,
  VOIDABLE,
} from './api.ts';
import { type ActionResult, RefundDialog, VoidDialog } from './order-actions.tsx';
import { paymentStateOf } from './payment-state.ts';
import { PaymentsTable } from './payments-table.tsx';
import { StatusPill } from './status.tsx';

export function OrderScreen(props: { params: Record<string, string> }) {
  const id = props.params.id ?? '';
  const order = useResource((signal) => getOrder(id, signal), [id]);
  const locationId = order.data?.location_id;
  const store = useResource(
    (signal) => (locationId ? getLocation(locationId, signal) : Promise.resolve(undefined)),
    [locationId],
  );
  useLive(order.reload, ['order'], 3_000);
  if (order.data === undefined) {
    if (order.error !== undefined) return <OrderError error={order.error} retry={order.reload} />;
    return (
      <Page title="Order">
        <Loading label="Loading the order…" />
      </Page>
    );
  }
  return <OrderView order={order.data} store={store.data} storeError={store.error} reload={order.reload} />;
}

function OrderError(props: { error: unknown; retry: () => void }) {
  const missing = props.error instanceof ApiError && props.error.status === 404;
  return (
    <Page title="Order">
      {missing ? (
        <Empty title="There is no such order" action={<a href={href('/orders')}>Search the orders</a>}>
          It may belong to another organisation, or the link is mistyped.
        </Empty>
      ) : (
        <ErrorNotice error={props.error} title="The order could not be loaded" onRetry={props.retry} />
      )}
    </Page>
  );
}

type Action = { kind: 'void' } | { kind: 'refund'; paymentId: string } | null;

function OrderView(props: {
  order: OrderWithPayments;
  store: Location | undefined;
  storeError: unknown;
  reload: () => void;
}) {
  const { order, store } = props;
  const [action, setAction] = useState<Action>(null);
  const [result, setResult] = useState<ActionResult | null>(null);
  const storeName = store?.name ?? 'the store';
  const zone = store?.timezone;
  const done = (outcome: ActionResult | null) => {
    setAction(null);
    props.reload();
    if (outcome) setResult(outcome);
  };
  const canVoid = VOIDABLE.includes(order.status);
  const refunding =
    action?.kind === 'refund' ? order.payments.find((p) => p.id === action.paymentId) : undefined;
  return (
    <Page
      title={`Order #${order.number}`}
      subtitle={
        <>
          <a href={href('/orders')}>All orders</a> · {store ? store.name : 'Loading the store…'}
          {zone && <span class="muted small"> · times in the store's zone ({zone})</span>}
        </>
      }
      actions={
        canVoid && (
          <button
            type="button"
            class="btn danger"
            data-testid="void-order"
            onClick={() => setAction({ kind: 'void' })}
          >
            Void order
          </button>
        )
      }
    >
      {props.storeError !== undefined && (
        <ErrorNotice error={props.storeError} title="The store could not be loaded" />
      )}
      {result && <ResultNotice result={result} order={order} onDismiss={() => setResult(null)} />}
      <Summary order={order} zone={zone} />
      <Lines order={order} />
      <Section title="Payments">
        <PaymentsTable
          payments={order.payments}
          zone={zone}
          onRefund={(paymentId) => setAction({ kind: 'refund', paymentId })}
        />
      </Section>
      {action?.kind === 'void' && <VoidDialog order={order} storeName={storeName} onClose={done} />}
      {refunding && <RefundDialog order={order} payment={refunding} storeName={storeName} onClose={done} />}
    </Page>
  );
}

function Summary(props: { order: OrderWithPayments; zone: string | undefined }) {
  const { order, zone } = props;
  const payment = paymentStateOf(order, order.payments);
  return (
    <div class="stats order-summary">
      <Stat label="Status" value={<StatusPill status={order.status} testId="order-status" />} />
      <Stat label="Payment" value={<Pill tone={payment.tone}>{payment.label}</Pill>} />
      <Stat label="Total" value={formatMoney(order.total)} />
      <Stat label="Placed" value={<span class="stat-small">{formatDateTime(order.created_at, zone)}</span>} />
      <Stat
        label="Last change"
        value={<span class="stat-small">{formatDateTime(order.updated_at, zone)}</span>}
      />
      <Stat label="Business day" value={<span class="stat-small">{order.business_day}</span>} />
      <Stat label="Service" value={<span class="stat-small">{serviceOf(order)}</span>} />
    </div>
  );
}

const serviceOf = (order: OrderWithPayments) =>
  [
    ORDER_TYPE_LABELS[order.order_type] ?? order.order_type,
    order.table ? `table ${order.table}` : null,
    order.server?.name ?? null,
  ]
    .filter(Boolean)
    .join(' · ');

function Lines(props: { order: OrderWithPayments }) {
  const { order } = props;
  return (
    <Section title="Items">
      {order.items.length === 0 ? (
        <Empty title="No items on this order">The store has not added any item to it yet.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col" class="num">
                  Qty
                </th>
                <th scope="col" class="num">
                  Unit price
                </th>
                <th scope="col" class="num">
                  Total
                </th>
                <th scope="col">Kitchen</th>
              </tr>
            </thead>
            <tbody>
              {order.items.map((line) => (
                <tr key={line.id}>
                  <td>
                    {line.name}
                    {line.modifiers.length > 0 && <div class="muted small">{line.modifiers.join(', ')}</div>}
                    {line.notes && <div class="muted small">Note: {line.notes}</div>}
                  </td>
                  <td class="num">{line.quantity}</td>
                  <td class="num">{formatMoney(line.unit_price)}</td>
                  <td class="num">{formatMoney(line.total)}</td>
                  <td>{line.status}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <Total label="Subtotal" value={order.subtotal} />
              <Total label="Tax" value={order.tax} />
              <Total label="Total" value={order.total} strong />
            </tfoot>
          </table>
        </div>
      )}
    </Section>
  );
}

function Total(props: { label: string; value: number; strong?: boolean }) {
  return (
    <tr class={props.strong ? 'order-total strong' : 'order-total'}>
      <th scope="row" colSpan={3}>
        {props.label}
      </th>
      <td class="num">{formatMoney(props.value)}</td>
      <td />
    </tr>
  );
}

function ResultNotice(props: { result: ActionResult; order: OrderWithPayments; onDismiss: () => void }) {
  const waiting =
    props.result.kind === 'void'
      ? props.order.status === 'cancelled'
        ? 'Head office already counts it cancelled; the store applies it at its next sync, or when it reconnects.'
        : `The store reports the order as ${props.order.status}; this page refreshes every few seconds.`
      : 'The store applies the refund at its next sync; this page refreshes every few seconds.';
  return (
    <div class="notice ok" role="status" data-testid="action-result">
      <strong>{props.result.message}</strong>
      <span>{waiting}</span>
      <button type="button" class="btn small" onClick={props.onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
