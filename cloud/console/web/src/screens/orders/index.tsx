/** Orders across the tenant's stores and one order in detail, with head office's void and refund. */
import type { Route } from '../../router.ts';
import { OrderScreen } from './order-detail.tsx';
import { OrdersScreen } from './orders-list.tsx';
import './orders.css';

export const orderRoutes: Route[] = [
  { path: '/orders', title: 'Orders', screen: OrdersScreen },
  { path: '/orders/:id', title: 'Order', screen: OrderScreen },
];
