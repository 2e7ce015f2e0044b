import { Empty, Page } from '../../components/ui.tsx';
import type { Route } from '../../router.ts';

function Screen0() {
  return (
    <Page title="Devices">
      <Empty title="Not built yet" />
    </Page>
  );
}

export const deviceRoutes: Route[] = [{ path: '/devices', title: 'Devices', screen: Screen0 }];
