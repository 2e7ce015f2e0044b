import { Empty, Pill, type Tone } from '../../components/ui.tsx';
import { formatDateTime, formatMoney } from '../../format.ts';
import { type Payment, refundableOf } from './api.ts';

const STATUS_TONES: Record<Payment['status'], Tone> = {
  authorized: 'info',
  captured: 'ok',
  voided: 'neutral',
  failed: 'bad',
};

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

export const methodOf = (payment: Payment) =>
  payment.card
    ? `${capitalized(payment.card.brand)} ···· ${payment.card.last4}`
    : payment.method === 'cash'
      ? 'Cash'
      : 'Card';

/** An order's payments; a captured one with something left to give back offers a refund. */
export function PaymentsTable(props: {
  payments: Payment[];
  zone: string | undefined;
  onRefund: (paymentId: string) => void;
}) {
  if (props.payments.length === 0)
    return (
      <Empty title="No payments yet">
        The order has not been paid at the store. Voiding it closes its balance.
      </Empty>
    );
  return (
    <div class="table-wrap">
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Method</th>
            <th scope="col">Taken</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Amount
            </th>
            <th scope="col" class="num">
              Tip
            </th>
            <th scope="col" class="num">
              Refunded
            </th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.payments.map((payment) => (
            <PaymentRow key={payment.id} payment={payment} zone={props.zone} onRefund={props.onRefund} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function PaymentRow(props: { payment: Payment; zone: string | undefined; onRefund: (id: string) => void }) {
  const { payment } = props;
  const refundable = refundableOf(payment);
  return (
    <tr data-testid="payment-row" data-payment-id={payment.id}>
      <td>
        {methodOf(payment)}
        {payment.failure_reason && <div class="error-text small">{payment.failure_reason}</div>}
      </td>
      <td>{formatDateTime(payment.created_at, props.zone)}</td>
      <td>
        <Pill tone={STATUS_TONES[payment.status] ?? 'neutral'}>{payment.status}</Pill>
      </td>
      <td class="num">{formatMoney(payment.amount)}</td>
      <td class="num">{formatMoney(payment.tip)}</td>
      <td class="num" data-testid="payment-refunded">
        {formatMoney(payment.refunded)}
      </td>
      <td>
        {refundable > 0 && (
          <button
            type="button"
            class="btn small"
            data-testid="refund-payment"
            aria-label={`Refund ${methodOf(payment)} payment of ${formatMoney(payment.amount)}`}
            onClick={() => props.onRefund(payment.id)}
          >
            Refund
          </button>
        )}
      </td>
    </tr>
  );
}
