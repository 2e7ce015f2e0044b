import { Empty, Page } from '../../components/ui.tsx';
import type { Route } from '../../router.ts';

function Screen0() {
  return (
    <Page title="Reports">
      <Empty title="Not built yet" />
    </Page>
  );
}

export const reportRoutes: Route[] = [{ path: '/reports', title: 'Reports', screen: Screen0 }];
