/**
 * Path routing under /console/: each screen is a pattern such as `/stores/:id`; links are real
 * anchors (middle-click and copy work) that navigate without a reload.
 */
import type { ComponentType } from 'preact';
import { createStore, useSlice } from './store.ts';

export const BASE = '/console';

export interface Route {
  /** Pattern under the base, e.g. `/orders/:id`. */
  path: string;
  screen: ComponentType<{ params: Record<string, string> }>;
  /** The page title (the document title is "<title> · Fleet console"). */
  title: string;
}

function current() {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '/';
  return { path: path === '' ? '/' : path, search: location.search };
}

const where = createStore(current());
addEventListener('popstate', () => where.set(current()));

export function navigate(to: string, options: { replace?: boolean } = {}) {
  const url = `${BASE}${to}`;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  where.set(current());
  scrollTo(0, 0);
}

export const useLocation = () => useSlice(where, (s) => s);

/** The current query string's parameters, and a setter that keeps the page in history. */
export function useSearch(): [URLSearchParams, (next: Record<string, string | undefined>) => void] {
  const { path, search } = useLocation();
  const params = new URLSearchParams(search);
  const set = (next: Record<string, string | undefined>) => {
    const merged = new URLSearchParams(search);
    for (const [key, value] of Object.entries(next))
      if (value === undefined || value === '') merged.delete(key);
      else merged.set(key, value);
    const text = merged.toString();
    navigate(`${path}${text ? `?${text}` : ''}`, { replace: true });
  };
  return [params, set];
}

export function match(
  routes: Route[],
  path: string,
): { route: Route; params: Record<string, string> } | null {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const ok = pattern.every((segment, i) => {
      if (segment.startsWith(':')) {
        params[segment.slice(1)] = decodeURIComponent(parts[i]!);
        return true;
      }
      return segment === parts[i];
    });
    if (ok) return { route, params };
  }
  return null;
}

/** Left clicks on in-app links navigate in place; modified clicks keep the browser's behaviour. */
export function onLinkClick(event: MouseEvent) {
  const anchor = (event.target as HTMLElement).closest('a');
  if (!anchor || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || anchor.target) return;
  const href = anchor.getAttribute('href');
  if (!href?.startsWith(`${BASE}/`) && href !== BASE) return;
  event.preventDefault();
  navigate(href.slice(BASE.length) || '/');
}

export const href = (to: string) => `${BASE}${to}`;
