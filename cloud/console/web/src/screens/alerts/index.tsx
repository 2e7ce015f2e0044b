import { Empty, Page } from '../../components/ui.tsx';
import type { Route } from '../../router.ts';

function Screen0() {
  return (
    <Page title="Alerts">
      <Empty title="Not built yet" />
    </Page>
  );
}

function Screen1() {
  return (
    <Page title="Incident">
      <Empty title="Not built yet" />
    </Page>
  );
}

export const alertRoutes: Route[] = [
  { path: '/alerts', title: 'Alerts', screen: Screen0 },
  { path: '/incidents/:id', title: 'Incident', screen: Screen1 },
];
