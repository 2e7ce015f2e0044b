/** Every screen of the console, in the order of the navigation. Each area owns its folder. */
import type { Route } from '../router.ts';
import { alertRoutes } from './alerts/index.tsx';
import { billingRoutes } from './billing/index.tsx';
import { deviceRoutes } from './devices/index.tsx';
import { menuRoutes } from './menu/index.tsx';
import { orderRoutes } from './orders/index.tsx';
import { reportRoutes } from './reports/index.tsx';
import { storeRoutes } from './stores/index.tsx';
import { userRoutes } from './users/index.tsx';
import { webhookRoutes } from './webhooks/index.tsx';

export interface NavItem {
  label: string;
  /** The path the item opens; it is the current item for every path under it. */
  path: string;
}

export const NAV: NavItem[] = [
  { label: 'Stores', path: '/stores' },
  { label: 'Menu', path: '/menu' },
  { label: 'Orders', path: '/orders' },
  { label: 'Reports', path: '/reports' },
  { label: 'Alerts', path: '/alerts' },
  { label: 'Webhooks', path: '/webhooks' },
  { label: 'Devices', path: '/devices' },
  { label: 'Users', path: '/users' },
  { label: 'Billing', path: '/billing' },
];

export const ROUTES: Route[] = [
  ...storeRoutes,
  ...menuRoutes,
  ...orderRoutes,
  ...reportRoutes,
  ...alertRoutes,
  ...webhookRoutes,
  ...deviceRoutes,
  ...userRoutes,
  ...billingRoutes,
];
