import { Empty, Page } from '../../components/ui.tsx';
import type { Route } from '../../router.ts';

function Screen0() {
  return (
    <Page title="Menu">
      <Empty title="Not built yet" />
    </Page>
  );
}

export const menuRoutes: Route[] = [{ path: '/menu', title: 'Menu', screen: Screen0 }];
