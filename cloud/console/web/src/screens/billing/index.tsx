/** Billing: the tenant's subscription, its usage, and the refunds and changes on the account. */
import { Empty, ErrorNotice, Field, inputValue, Loading, Page } from '../../components/ui.tsx';
import { useResource } from '../../hooks.ts';
import { type Route, useSearch } from '../../router.ts';
import { api } from '../../session.ts';
import { formatDay, loadAccount, type Subscription } from './billing-api.ts';
import { HistorySection } from './history.tsx';
import { SubscriptionCard, words } from './subscription.tsx';
import { RANGES, type UsageRange, UsageSection } from './usage.tsx';
import './billing.css';

interface Tenant {
  name: string;
  tier: string;
}

async function load(signal: AbortSignal) {
  const [account, tenant] = await Promise.all([
    loadAccount(signal),
    api.data<Tenant>('/v1/platform/tenant', signal).catch(() => null),
  ]);
  return { ...account, tenant };
}

function Picker(props: { subscriptions: Subscription[]; value: string; onChange: (id: string) => void }) {
  if (props.subscriptions.length < 2) return null;
  return (
    <div class="toolbar">
      <Field label="Subscription">
        <select value={props.value} onChange={(e) => props.onChange(inputValue(e))}>
          {props.subscriptions.map((s) => (
            <option key={s.id} value={s.id}>
              {`${words(s.status)}, ${s.cancel_at_period_end ? 'ends' : 'renews'} ${formatDay(s.current_period_end)}`}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );
}

function NoSubscription() {
  return (
    <section class="card" data-testid="billing-subscription" aria-label="Subscription">
      <Empty title="No subscription yet">
        Your subscription shows here once the payment processor has recorded it. To subscribe or change plans,
        contact your account manager; if you have subscribed already, check back in a few minutes.
      </Empty>
    </section>
  );
}

function BillingScreen() {
  const [params, setSearch] = useSearch();
  const { data, error, reload } = useResource(load, []);
  if (error && !data)
    return (
      <Page title="Billing">
        <ErrorNotice error={error} onRetry={reload} title="Billing could not be loaded" />
      </Page>
    );
  if (!data)
    return (
      <Page title="Billing">
        <Loading label="Loading billing…" />
      </Page>
    );
  const chosen = data.subscriptions.find((s) => s.id === params.get('subscription')) ?? data.subscriptions[0];
  const askedRange = params.get('range') as UsageRange | null;
  const range = askedRange && RANGES.some((r) => r.id === askedRange) ? askedRange : 'period';
  const metrics = (params.get('metrics') ?? 'orders').split(',').filter(Boolean);
  const events = chosen ? data.events.filter((e) => e.subscription_id === chosen.id) : data.events;
  return (
    <Page
      title="Billing"
      subtitle={data.tenant ? `${data.tenant.name}, ${data.tenant.tier} plan` : undefined}
    >
      {error !== undefined && (
        <ErrorNotice error={error} onRetry={reload} title="Billing could not be refreshed" />
      )}
      {chosen ? (
        <>
          <Picker
            subscriptions={data.subscriptions}
            value={chosen.id}
            onChange={(subscription) => setSearch({ subscription })}
          />
          <SubscriptionCard subscription={chosen} tier={data.tenant?.tier ?? null} onChanged={reload} />
          <UsageSection
            subscription={chosen}
            metrics={metrics}
            range={range}
            onChange={(next) => setSearch({ metrics: next.metrics.join(',') || ',', range: next.range })}
          />
        </>
      ) : (
        <NoSubscription />
      )}
      <HistorySection events={events} invoices={data.invoices} refunds={data.refunds} />
    </Page>
  );
}

export const billingRoutes: Route[] = [{ path: '/billing', title: 'Billing', screen: BillingScreen }];
