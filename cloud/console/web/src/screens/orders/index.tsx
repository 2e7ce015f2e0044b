import { Empty, Page } from '../../components/ui.tsx';
import type { Route } from '../../router.ts';

function Screen0() {
  return (
    <Page title="Orders">
      <Empty title="Not built yet" />
    </Page>
  );
}

function Screen1() {
  return (
    <Page title="Order">
      <Empty title="Not built yet" />
    </Page>
  );
}

export const orderRoutes: Route[] = [
  { path: '/orders', title: 'Orders', screen: Screen0 },
  { path: '/orders/:id', title: 'Order', screen: Screen1 },
];
