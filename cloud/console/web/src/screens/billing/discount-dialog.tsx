/** Apply a discount code: the code is checked against the subscription's plan first, then applied on confirmation. */
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice, Field, inputValue } from '../../components/ui.tsx';
import { formatNumber } from '../../format.ts';
import { api } from '../../session.ts';
import type { DiscountCheck, Subscription } from './billing-api.ts';

function describeCheck(check: DiscountCheck): string {
  if (!check.valid) return check.message;
  const value = check.discount_value ?? 0;
  return check.discount_type === 'percentage' ? `${value}% off` : `${formatNumber(value / 100, 2)} off`;
}

export function DiscountDialog(props: { subscription: Subscription; onClose: (done: boolean) => void }) {
  const [code, setCode] = useState('');
  const [check, setCheck] = useState<DiscountCheck | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const validate = () =>
    run(async () => {
      setCheck(
        await api.post<DiscountCheck>('/v1/billing/discounts/validate', {
          code: code.trim(),
          plan_id: props.subscription.plan_id,
          cart_total_cents: 0,
        }),
      );
    });
  const apply = () =>
    run(async () => {
      await api.post(`/v1/billing/subscriptions/${props.subscription.id}/discount`, {
        discount_code: code.trim(),
      });
      props.onClose(true);
    });
  const checked = check?.valid === true;
  return (
    <Dialog title="Apply a discount code" onClose={() => !busy && props.onClose(false)}>
      <form
        class="dialog-body"
        onSubmit={(event) => {
          event.preventDefault();
          void (checked ? apply() : validate());
        }}
      >
        <Field
          label="Discount code"
          hint="The code is checked against this subscription's plan before anything changes."
        >
          <input
            value={code}
            maxLength={100}
            required
            autoComplete="off"
            data-testid="discount-code"
            onInput={(event) => {
              setCode(inputValue(event));
              setCheck(null);
            }}
          />
        </Field>
        {check && (
          <p class={`notice ${check.valid ? 'ok' : 'bad'}`} role="status">
            {check.valid
              ? `${check.code}: ${describeCheck(check)}. Applying it takes one redemption of the code and lowers what this subscription is charged from the next invoice.`
              : describeCheck(check)}
          </p>
        )}
        {error !== undefined && <ErrorNotice error={error} title="It did not go through" />}
        <div class="dialog-actions">
          <button type="button" class="btn" onClick={() => props.onClose(false)} disabled={busy}>
            Cancel
          </button>
          {checked ? (
            <button type="submit" class="btn primary" disabled={busy} data-testid="confirm">
              {busy ? 'Working…' : 'Apply discount'}
            </button>
          ) : (
            <button type="submit" class="btn primary" disabled={busy || code.trim() === ''}>
              {busy ? 'Checking…' : 'Check code'}
            </button>
          )}
        </div>
      </form>
    </Dialog>
  );
}
