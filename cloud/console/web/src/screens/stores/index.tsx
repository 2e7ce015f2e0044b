/** The Stores area: the fleet's list of stores and each store's page. */
import type { Route } from '../../router.ts';
import { StoresScreen } from './list.tsx';
import { StorePage } from './store-page.tsx';
import './stores.css';

export const storeRoutes: Route[] = [
  { path: '/stores', title: 'Stores', screen: StoresScreen },
  { path: '/stores/:id', title: 'Store', screen: StorePage },
];
