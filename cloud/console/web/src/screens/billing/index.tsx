import { Empty, Page } from '../../components/ui.tsx';
import type { Route } from '../../router.ts';

function Screen0() {
  return (
    <Page title="Billing">
      <Empty title="Not built yet" />
    </Page>
  );
}

export const billingRoutes: Route[] = [{ path: '/billing', title: 'Billing', screen: Screen0 }];
