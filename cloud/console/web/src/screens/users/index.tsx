import { Empty, Page } from '../../components/ui.tsx';
import type { Route } from '../../router.ts';

function Screen0() {
  return (
    <Page title="Users">
      <Empty title="Not built yet" />
    </Page>
  );
}

export const userRoutes: Route[] = [{ path: '/users', title: 'Users', screen: Screen0 }];
