/** The brands' menus: items, prices and availability, published to every store with its progress. */
import type { Route } from '../../router.ts';
import { MenuScreen } from './menu-screen.tsx';
import './menu.css';

export const menuRoutes: Route[] = [{ path: '/menu', title: 'Menu', screen: MenuScreen }];
