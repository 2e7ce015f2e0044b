import { Empty, Page } from '../../components/ui.tsx';
import type { Route } from '../../router.ts';

function Screen0() {
  return (
    <Page title="Webhooks">
      <Empty title="Not built yet" />
    </Page>
  );
}

export const webhookRoutes: Route[] = [{ path: '/webhooks', title: 'Webhooks', screen: Screen0 }];
