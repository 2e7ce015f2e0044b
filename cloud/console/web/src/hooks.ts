import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { onFrame } from './feed.ts';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads with `load` whenever `deps` change, keeps the last data while reloading (no flicker on a
 * live refresh), and drops answers to requests a newer one replaced.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    loadRef.current(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, error: undefined, loading: false }),
      (error: unknown) => !controller.signal.aborted && setState((s) => ({ ...s, error, loading: false })),
    );
    return () => controller.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** Calls `fn` every `ms` while the page is visible. */
export function useInterval(fn: () => void, ms: number) {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') ref.current();
    }, ms);
    return () => clearInterval(timer);
  }, [ms]);
}

/**
 * Reloads a resource when the console feed carries a frame of one of `types` (throttled to one
 * reload a second), and every `fallbackMs` in case the feed is down.
 */
export function useLive(reload: () => void, types: string[], fallbackMs = 15_000) {
  const last = useRef(0);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const reloadRef = useRef(reload);
  reloadRef.current = reload;
  useEffect(() => {
    const stop = onFrame((frame) => {
      if (!types.includes(frame.type)) return;
      const wait = Math.max(0, last.current + 1000 - Date.now());
      clearTimeout(pending.current);
      pending.current = setTimeout(() => {
        last.current = Date.now();
        reloadRef.current();
      }, wait);
    });
    return () => {
      stop();
      clearTimeout(pending.current);
    };
  }, [types.join(',')]);
  useInterval(() => reloadRef.current(), fallbackMs);
}

/** The current time, refreshed every `ms`. */
export function useNow(ms = 1000) {
  const [now, setNow] = useState(Date.now());
  useInterval(() => setNow(Date.now()), ms);
  return now;
}

/**
 * Keyset pages: the cursors of the pages walked so far, so Previous goes back exactly; a change of
 * `filtersKey` starts again at the first page.
 */
export function useCursorPages(filtersKey: string) {
  const [state, setState] = useState<{ key: string; cursors: string[] }>({ key: filtersKey, cursors: [] });
  const cursors = state.key === filtersKey ? state.cursors : [];
  return {
    cursor: cursors.at(-1),
    page: cursors.length + 1,
    hasPrevious: cursors.length > 0,
    next: (cursor: string) => setState({ key: filtersKey, cursors: [...cursors, cursor] }),
    previous: () => setState({ key: filtersKey, cursors: cursors.slice(0, -1) }),
  };
}

/** The next page's cursor of a `{data, meta: {pagination}}` answer, null on the last page. */
export const nextCursorOf = (
  answer: { meta?: { pagination?: { next_cursor?: string | null } } } | undefined,
) => answer?.meta?.pagination?.next_cursor ?? null;
