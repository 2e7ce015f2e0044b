/** The subscription: plan, status, period, discount, dunning and add-ons, with pause, resume and discount codes. */
import { useState } from 'preact/hooks';
import {
  ConfirmDialog,
  Empty,
  ErrorNotice,
  Loading,
  Pill,
  ProgressBar,
  Section,
  type Tone,
} from '../../components/ui.tsx';
import { formatDateTime, formatNumber } from '../../format.ts';
import { useResource } from '../../hooks.ts';
import { api } from '../../session.ts';
import {
  cents,
  type Discount,
  type Dunning,
  formatDay,
  loadDetail,
  type Subscription,
  type SubscriptionAddon,
} from './billing-api.ts';
import { DiscountDialog } from './discount-dialog.tsx';

const STATUS_TONE: Record<string, Tone> = {
  active: 'ok',
  trialing: 'info',
  past_due: 'warn',
  unpaid: 'bad',
  canceled: 'neutral',
  incomplete: 'warn',
  incomplete_expired: 'neutral',
  paused: 'neutral',
};

const DUNNING_TONE: Record<Dunning['status'], Tone> = {
  ok: 'ok',
  retrying: 'warn',
  exhausted: 'bad',
  recovered: 'ok',
};

export const words = (value: string) => value.replace(/_/g, ' ');

export function describeDiscount(d: Discount): string {
  const off =
    d.discount_type === 'percentage'
      ? `${d.discount_value}% off`
      : `${formatNumber(d.discount_value / 100, 2)} off`;
  const lasts =
    d.duration === 'forever'
      ? 'forever'
      : d.duration === 'once'
        ? 'once'
        : `for ${d.duration_months} month${d.duration_months === 1 ? '' : 's'}`;
  return `${d.code}: ${d.name}, ${off}, ${lasts}`;
}

function DunningState(props: { dunning: Dunning }) {
  const d = props.dunning;
  if (d.status === 'ok') return <Pill tone="ok">payments up to date</Pill>;
  return (
    <div class="billing-dunning">
      <Pill tone={DUNNING_TONE[d.status]}>
        {d.status === 'retrying' ? 'payment failed: retrying' : words(d.status)}
      </Pill>
      {d.status !== 'recovered' && (
        <>
          <ProgressBar
            label={`Failed payments: ${d.failure_count} of ${d.max_failures} before the subscription becomes unpaid`}
            value={d.failure_count / d.max_failures}
            tone={d.status === 'exhausted' ? 'bad' : undefined}
          />
          <span class="small">
            {d.failure_count} of {d.max_failures} failed payments
            {d.next_retry_at ? `; next retry ${formatDateTime(d.next_retry_at)}` : '; no retry left'}
          </span>
        </>
      )}
      {d.last_failure_message && (
        <span class="small muted">
          Last failure {formatDateTime(d.last_failure_at)}: {d.last_failure_message}
          {d.last_failure_code ? ` (${d.last_failure_code})` : ''}
        </span>
      )}
      {d.recovered_at && <span class="small muted">Recovered {formatDateTime(d.recovered_at)}</span>}
    </div>
  );
}

function Addons(props: { addons: SubscriptionAddon[] }) {
  if (props.addons.length === 0)
    return (
      <Empty title="No add-ons on this subscription">
        Add-ons (extra stores, modules) are added by your account manager through the payment processor.
      </Empty>
    );
  return (
    <div class="table-wrap">
      <table class="table billing-table">
        <caption class="visually-hidden">Add-ons of the subscription</caption>
        <thead>
          <tr>
            <th scope="col">Add-on</th>
            <th scope="col">Billed</th>
            <th scope="col" class="num">
              Quantity
            </th>
            <th scope="col" class="num">
              Unit price
            </th>
            <th scope="col" class="num">
              Total
            </th>
          </tr>
        </thead>
        <tbody>
          {props.addons.map((a) => (
            <tr key={a.id}>
              <th scope="row">
                {a.addon.name} {!a.addon.is_active && <Pill tone="neutral">retired</Pill>}
              </th>
              <td>{words(a.addon.addon_type)}</td>
              <td class="num">{a.quantity}</td>
              <td class="num">{cents(a.addon.price_cents, a.addon.currency)}</td>
              <td class="num">{cents(a.addon.price_cents * a.quantity, a.addon.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type Action = 'pause' | 'resume' | 'apply-discount' | 'remove-discount' | null;

function Confirmations(props: {
  action: Action;
  subscription: Subscription;
  discount: Discount | null;
  close: (done: boolean) => void;
}) {
  const { subscription: s } = props;
  const base = `/v1/billing/subscriptions/${s.id}`;
  if (props.action === 'pause')
    return (
      <ConfirmDialog
        title="Pause the subscription?"
        confirmLabel="Pause subscription"
        danger
        onConfirm={() => api.post(`${base}/pause`)}
        onClose={props.close}
      >
        <p>
          The platform is asked to pause billing for this subscription. While it is paused, the fleet's paid
          features may stop until it is resumed.
        </p>
      </ConfirmDialog>
    );
  if (props.action === 'resume')
    return (
      <ConfirmDialog
        title="Resume the subscription?"
        confirmLabel="Resume subscription"
        onConfirm={() => api.post(`${base}/resume`)}
        onClose={props.close}
      >
        <p>Billing starts again for this subscription: the plan and its add-ons are charged from now on.</p>
      </ConfirmDialog>
    );
  if (props.action === 'remove-discount' && props.discount)
    return (
      <ConfirmDialog
        title="Remove the discount?"
        confirmLabel="Remove discount"
        danger
        onConfirm={() => api.delete(`${base}/discount`)}
        onClose={props.close}
      >
        <p>
          {describeDiscount(props.discount)} stops applying to this subscription. The redemption is not given
          back: the same code may not be usable again.
        </p>
      </ConfirmDialog>
    );
  if (props.action === 'apply-discount') return <DiscountDialog subscription={s} onClose={props.close} />;
  return null;
}

function Details(props: { subscription: Subscription; onChanged: () => void }) {
  const s = props.subscription;
  const detail = useResource((signal) => loadDetail(s, signal), [s.id, s.updated_at, s.discount_id]);
  const [action, setAction] = useState<Action>(null);
  const close = (done: boolean) => {
    setAction(null);
    if (done) props.onChanged();
  };
  const discount = detail.data?.discount ?? null;
  return (
    <>
      <dl class="billing-facts">
        <dt>Discount</dt>
        <dd>
          {detail.data ? (discount ? describeDiscount(discount) : 'None') : '…'}{' '}
          {discount ? (
            <button type="button" class="btn small" onClick={() => setAction('remove-discount')}>
              Remove discount
            </button>
          ) : (
            <button type="button" class="btn small" onClick={() => setAction('apply-discount')}>
              Apply a discount code
            </button>
          )}
        </dd>
        <dt>Payments</dt>
        <dd>{detail.data ? <DunningState dunning={detail.data.dunning} /> : '…'}</dd>
      </dl>
      <div class="toolbar">
        {s.status === 'paused' ? (
          <button type="button" class="btn primary" onClick={() => setAction('resume')}>
            Resume subscription
          </button>
        ) : (
          s.status !== 'canceled' && (
            <button type="button" class="btn" onClick={() => setAction('pause')}>
              Pause subscription
            </button>
          )
        )}
      </div>
      <h3>Add-ons</h3>
      {detail.error !== undefined && (
        <ErrorNotice
          error={detail.error}
          onRetry={detail.reload}
          title="The subscription's details could not be loaded"
        />
      )}
      {!detail.data && !detail.error && <Loading />}
      {detail.data && <Addons addons={detail.data.addons} />}
      <Confirmations action={action} subscription={s} discount={discount} close={close} />
    </>
  );
}

export function SubscriptionCard(props: {
  subscription: Subscription;
  tier: string | null;
  onChanged: () => void;
}) {
  const s = props.subscription;
  return (
    <Section title="Subscription" id="billing-subscription-title">
      <div data-testid="billing-subscription">
        <dl class="billing-facts">
          <dt>Status</dt>
          <dd>
            <Pill tone={STATUS_TONE[s.status] ?? 'neutral'}>{words(s.status)}</Pill>
            {s.cancel_at_period_end && (
              <>
                {' '}
                <Pill tone="warn">ends at period end</Pill>
              </>
            )}
          </dd>
          <dt>Plan</dt>
          <dd>
            {props.tier ? <strong class="billing-tier">{props.tier}</strong> : null}{' '}
            <span class="muted small">
              plan <code>{s.plan_id}</code>
            </span>
          </dd>
          <dt>{s.cancel_at_period_end ? 'Ends' : 'Renews'}</dt>
          <dd>{formatDay(s.current_period_end)}</dd>
          <dt>Processor reference</dt>
          <dd>
            <code>{s.processor_subscription_id}</code>
          </dd>
          <dt>Since</dt>
          <dd>{formatDay(s.created_at)}</dd>
        </dl>
        <Details subscription={s} onChanged={props.onChanged} />
      </div>
    </Section>
  );
}
