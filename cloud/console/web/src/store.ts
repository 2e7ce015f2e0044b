/** A small observable value and the hook that re-renders a component when its slice changes. */
import { useEffect, useState } from 'preact/hooks';

export function createStore<S extends object>(initial: S) {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => state,
    set(patch: Partial<S>) {
      state = { ...state, ...patch };
      for (const listener of listeners) listener();
    },
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

export type Store<S extends object> = ReturnType<typeof createStore<S>>;

export function useSlice<S extends object, T>(store: Store<S>, pick: (state: S) => T): T {
  const [value, setValue] = useState(() => pick(store.get()));
  useEffect(() => {
    const update = () => setValue(() => pick(store.get()));
    update();
    return store.subscribe(update);
  }, [store]);
  return value;
}
