import { useEffect, useRef, useState } from 'preact/hooks';

/** The time now, ticking every `everyMs` while mounted: for ages and countdowns. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Data from `load`, read on mount, when `deps` change, every `everyMs` if given, and on `reload`.
 * Only the newest request's answer is kept; a timed read is skipped while one is in flight.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = [], everyMs?: number): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const latest = useRef(load);
  latest.current = load;
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let newest = 0;
    let inFlight = false;
    let active = true;
    const run = (timed: boolean) => {
      if (timed && inFlight) return;
      const id = ++newest;
      inFlight = true;
      latest
        .current()
        .then((data) => active && id === newest && setState({ data, loading: false }))
        .catch(
          (error: Error) => active && id === newest && setState((s) => ({ ...s, error, loading: false })),
        )
        .finally(() => {
          if (id === newest) inFlight = false;
        });
    };
    run(false);
    const timer = everyMs ? setInterval(() => run(true), everyMs) : undefined;
    return () => {
      active = false;
      clearInterval(timer);
    };
  }, [...deps, tick, everyMs]);

  return {
    data: state.data,
    error: state.error,
    loading: state.loading,
    reload: () => setTick((t) => t + 1),
  };
}

/** Calls `fn` at most once per `ms`, the last call winning (for bursts of feed events). */
export function useThrottled(fn: () => void, ms: number): () => void {
  const latest = useRef(fn);
  latest.current = fn;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      latest.current();
    }, ms);
  };
}
