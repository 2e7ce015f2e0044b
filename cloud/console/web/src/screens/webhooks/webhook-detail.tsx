/** One subscription: its settings and figures, its actions, its deliveries and (admin) its statistics. */
import { ApiError } from '../../api.ts';
import { Empty, ErrorNotice, Loading, Page, Pill, Section, Stat } from '../../components/ui.tsx';
import { formatDateTime, formatNumber, formatPercent } from '../../format.ts';
import { useResource } from '../../hooks.ts';
import { href, navigate, useSearch } from '../../router.ts';
import { type Iface, statusTone, type Webhook, webhookApi } from './client.ts';
import { Deliveries } from './deliveries.tsx';
import { WebhookActions } from './webhook-actions.tsx';
import { EventList } from './webhook-lists.tsx';
import { WebhookStats } from './webhook-stats.tsx';

export function WebhookDetailScreen(props: { params: Record<string, string> }) {
  const id = props.params.id ?? '';
  const [search] = useSearch();
  const iface: Iface = search.get('interface') === 'subscription' ? 'subscription' : 'admin';
  const back = href(`/webhooks${iface === 'subscription' ? '' : '?tab=admin'}`);
  const hook = useResource((signal) => webhookApi.get(iface, id, signal), [iface, id]);
  const data = hook.data;
  if (hook.error instanceof ApiError && hook.error.status === 404)
    return (
      <Page title="Webhook not found">
        <Empty title="There is no such subscription" action={<a href={back}>Back to the webhooks</a>}>
          It was deleted, belongs to the other interface, or the link is wrong.
        </Empty>
      </Page>
    );
  return (
    <Page
      title={data?.url ?? 'Webhook'}
      subtitle={
        <a href={back}>← All webhooks ({iface === 'admin' ? 'admin interface' : 'subscription interface'})</a>
      }
      actions={
        data && (
          <WebhookActions
            iface={iface}
            webhook={data}
            onChanged={hook.reload}
            onDeleted={() => navigate(`/webhooks${iface === 'subscription' ? '' : '?tab=admin'}`)}
          />
        )
      }
    >
      <div data-testid="webhook-detail" data-webhook-id={id} data-webhook-status={data?.status}>
        {hook.error !== undefined && (
          <ErrorNotice error={hook.error} onRetry={hook.reload} title="The webhook did not load" />
        )}
        {!data && hook.loading && <Loading label="Loading the webhook…" />}
        {data && <Overview iface={iface} webhook={data} />}
        {data && <Deliveries iface={iface} webhookId={id} events={data.events} />}
        {data && iface === 'admin' && <WebhookStats webhookId={id} />}
        {data && iface === 'subscription' && (
          <p class="notice info">
            Statistics, delivery bodies and Retry are offered by the admin interface, for webhooks made there.
          </p>
        )}
      </div>
    </Page>
  );
}

function Overview(props: { iface: Iface; webhook: Webhook }) {
  const { webhook } = props;
  const stats = webhook.stats;
  return (
    <>
      {stats && stats.total_deliveries !== undefined && (
        <div class="stats">
          <Stat label="Attempts, all time" value={formatNumber(stats.total_deliveries)} />
          <Stat label="Success rate" value={formatPercent(stats.success_rate)} />
          <Stat label="Average latency" value={`${formatNumber(stats.avg_latency_ms)} ms`} />
          <Stat label="Last success" value={formatDateTime(stats.last_success)} />
          <Stat
            label="Last failure"
            value={formatDateTime(stats.last_failure)}
            tone={stats.last_failure ? 'warn' : undefined}
          />
        </div>
      )}
      <Section title="Subscription">
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <Pill tone={statusTone(webhook.status)}>{webhook.status}</Pill>
            {webhook.disabled_reason &&
              ` ${webhook.disabled_reason} (since ${formatDateTime(webhook.disabled_at)})`}
          </dd>
          <dt>Events</dt>
          <dd>
            <EventList events={webhook.events} />
          </dd>
          {webhook.description && (
            <>
              <dt>Description</dt>
              <dd>{webhook.description}</dd>
            </>
          )}
          <dt>Created</dt>
          <dd>{formatDateTime(webhook.created_at)}</dd>
          {webhook.secret_last4 && (
            <>
              <dt>Secret</dt>
              <dd>
                ends in <code>{webhook.secret_last4}</code>
              </dd>
            </>
          )}
          {webhook.settings && (
            <>
              <dt>Delivery</dt>
              <dd>
                time-out {webhook.settings.timeout_seconds} s, up to{' '}
                {webhook.settings.retry_policy.max_attempts} attempts ({webhook.settings.retry_policy.backoff}
                ), {webhook.settings.max_in_flight} in flight
                {webhook.settings.max_per_second !== null && `, at most ${webhook.settings.max_per_second}/s`}
                {webhook.settings.batch_events && ', batched'}
              </dd>
            </>
          )}
          <dt>Signature</dt>
          <dd>
            {props.iface === 'admin'
              ? 'X-Service-Signature: sha256=<hex> over <X-Service-Timestamp>.<body>'
              : 'X-Service-Signature: t=<unix>,v1=<hex> over <t>.<body>'}
          </dd>
        </dl>
      </Section>
    </>
  );
}
