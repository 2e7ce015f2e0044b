/** Webhooks: both interfaces' subscriptions, and one subscription with its deliveries and statistics. */
import { useState } from 'preact/hooks';
import { Page, Tabs } from '../../components/ui.tsx';
import { type Route, useSearch } from '../../router.ts';
import type { Iface } from './client.ts';
import { CreateWebhook } from './create-webhook.tsx';
import { WebhookDetailScreen } from './webhook-detail.tsx';
import { AdminList, SubscriptionList } from './webhook-lists.tsx';
import './webhooks.css';

function WebhooksScreen() {
  const [search, setSearch] = useSearch();
  const tab: Iface = search.get('tab') === 'admin' ? 'admin' : 'subscription';
  const [creating, setCreating] = useState(false);
  const [version, setVersion] = useState(0);
  const create = () => setCreating(true);
  return (
    <Page
      title="Webhooks"
      subtitle="Signed deliveries of orders, payments, stock and more to receivers you run."
      actions={
        <button type="button" class="btn primary" onClick={create} data-testid="create-webhook">
          New subscription
        </button>
      }
    >
      <div data-testid="webhooks-tabs">
        <Tabs<Iface>
          label="Webhook interfaces"
          tabs={[
            { id: 'subscription', label: 'Subscriptions' },
            { id: 'admin', label: 'Admin' },
          ]}
          value={tab}
          onChange={(next) => setSearch({ tab: next === 'admin' ? 'admin' : undefined })}
        />
      </div>
      <div role="tabpanel" aria-label={tab === 'admin' ? 'Admin' : 'Subscriptions'}>
        <p class="muted small">
          {tab === 'admin'
            ? 'The admin interface (/api/v1/webhooks): its own event catalog, settings per endpoint, delivery detail, retry and statistics. Platform administrators only.'
            : 'The subscription interface (/v1/webhooks): the domain events as stores write them, for tenant admins.'}
        </p>
        {tab === 'admin' ? (
          <AdminList onCreate={create} version={version} />
        ) : (
          <SubscriptionList onCreate={create} version={version} />
        )}
      </div>
      {creating && (
        <CreateWebhook
          iface={tab}
          onClose={() => setCreating(false)}
          onCreated={() => setVersion((v) => v + 1)}
        />
      )}
    </Page>
  );
}

export const webhookRoutes: Route[] = [
  { path: '/webhooks', title: 'Webhooks', screen: WebhooksScreen },
  { path: '/webhooks/:id', title: 'Webhook', screen: WebhookDetailScreen },
];
