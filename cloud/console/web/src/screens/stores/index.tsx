import { Empty, Page } from '../../components/ui.tsx';
import type { Route } from '../../router.ts';

function Screen0() {
  return (
    <Page title="Stores">
      <Empty title="Not built yet" />
    </Page>
  );
}

function Screen1() {
  return (
    <Page title="Store">
      <Empty title="Not built yet" />
    </Page>
  );
}

export const storeRoutes: Route[] = [
  { path: '/stores', title: 'Stores', screen: Screen0 },
  { path: '/stores/:id', title: 'Store', screen: Screen1 },
];
