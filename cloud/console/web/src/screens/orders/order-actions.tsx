/** Head office's two actions on a store's order: void it, refund a payment. Both ask first. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import { ConfirmDialog, Dialog, ErrorNotice, Field, inputValue } from '../../components/ui.tsx';
import { formatMoney } from '../../format.ts';
import { cancelOrder, type OrderWithPayments, type Payment, refundableOf, refundPayment } from './api.ts';
import { methodOf } from './payments-table.tsx';

export interface ActionResult {
  kind: 'void' | 'refund';
  message: string;
}

export function VoidDialog(props: {
  order: OrderWithPayments;
  storeName: string;
  onClose: (result: ActionResult | null) => void;
}) {
  const { order, storeName } = props;
  const paid = order.payments.some((p) => p.status === 'captured' && refundableOf(p) > 0);
  return (
    <ConfirmDialog
      title={`Void order #${order.number}?`}
      confirmLabel="Void the order"
      danger
      onConfirm={() => cancelOrder(order.id)}
      onClose={(done) =>
        props.onClose(done ? { kind: 'void', message: `Order #${order.number} was voided.` } : null)
      }
    >
      <p>
        Order #{order.number} at {storeName} will be cancelled: the kitchen screens drop it, the store's sales
        and P&amp;L no longer count it, and its unpaid balance is closed. The store receives this at its next
        sync; if it is offline it applies when it reconnects.
      </p>
      {paid && (
        <p>
          <strong>A void does not refund.</strong> This order has captured payments: refund them separately
          from the payments below.
        </p>
      )}
    </ConfirmDialog>
  );
}

const AMOUNT = /^\d+(\.\d{1,2})?$/;

/** Plain words for what is wrong with an amount, or its value in minor units. */
export function parseRefund(text: string, refundableMinor: number): { minor: number } | { error: string } {
  const value = text.trim().replace(/^\$/, '');
  if (value === '') return { error: 'Enter the amount to give back.' };
  if (!AMOUNT.test(value)) return { error: 'Enter an amount such as 12.50, with at most 2 decimals.' };
  const minor = Math.round(Number(value) * 100);
  if (minor <= 0) return { error: 'The amount must be more than zero.' };
  if (minor > refundableMinor)
    return { error: `At most ${formatMoney(refundableMinor / 100)} can be refunded on this payment.` };
  return { minor };
}

/** The server's word on the amount (400 names the most that can be refunded) goes on the field. */
function fieldErrorOf(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  const detail = error.details.find((d) => d.field.endsWith('amount_minor'));
  if (!detail) return null;
  const most = /at most (\d+)/.exec(detail.message)?.[1];
  return most ? `At most ${formatMoney(Number(most) / 100)} can be refunded now.` : detail.message;
}

export function RefundDialog(props: {
  order: OrderWithPayments;
  payment: Payment;
  storeName: string;
  onClose: (result: ActionResult | null) => void;
}) {
  const { payment, order } = props;
  const refundable = refundableOf(payment);
  const [text, setText] = useState((refundable / 100).toFixed(2));
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const parsed = parseRefund(text, refundable);
  const serverField = fieldErrorOf(error);
  const fieldError = touched && 'error' in parsed ? parsed.error : (serverField ?? undefined);
  const amount = 'minor' in parsed ? formatMoney(parsed.minor / 100) : null;
  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    if (!('minor' in parsed)) return;
    setBusy(true);
    setError(undefined);
    try {
      await refundPayment(payment.id, parsed.minor);
      props.onClose({ kind: 'refund', message: `${amount} was refunded on ${methodOf(payment)}.` });
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Refund on order #${order.number}`} onClose={() => !busy && props.onClose(null)}>
      <form onSubmit={submit} noValidate>
        <p class="muted">
          {methodOf(payment)} paid {formatMoney(payment.amount)}
          {payment.refunded > 0 && `, of which ${formatMoney(payment.refunded)} was refunded before`}. At most{' '}
          {formatMoney(refundable / 100)} can be given back; the tip stays with the staff.
        </p>
        <Field label="Amount to refund" error={fieldError} hint={`Up to ${formatMoney(refundable / 100)}`}>
          <input
            inputMode="decimal"
            data-testid="refund-amount"
            value={text}
            aria-invalid={fieldError ? true : undefined}
            onInput={(e) => {
              setText(inputValue(e));
              setError(undefined);
            }}
            onBlur={() => setTouched(true)}
          />
        </Field>
        <p data-testid="refund-summary">
          {amount ? <strong>{amount}</strong> : 'The amount'} goes back to the customer on {methodOf(payment)}{' '}
          at {props.storeName}. {refundWords(payment)}
        </p>
        {error !== undefined && !serverField && (
          <ErrorNotice error={error} title="The refund did not go through" />
        )}
        <div class="dialog-actions">
          <button type="button" class="btn" disabled={busy} onClick={() => props.onClose(null)}>
            Cancel
          </button>
          <button type="submit" class="btn danger" disabled={busy} data-testid="confirm">
            {busy ? 'Refunding…' : `Refund ${amount ?? ''}`.trim()}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function refundWords(payment: Payment) {
  return payment.method === 'card'
    ? "The store's records and the card processor will show the refund once the store applies it at its next sync; the P&L counts it at once."
    : "The store's records will show the refund once it applies it at its next sync; hand the cash back at the store. The P&L counts it at once.";
}
