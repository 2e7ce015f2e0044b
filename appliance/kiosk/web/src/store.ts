/**
 * The kiosk's state in one small store: the session, the feed's topics, the open mismatches.
 * Components read slices with `useStore(select)`; screens keep their own data in their own hooks.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Mismatch, VerificationPayload } from './lib/mismatch.ts';
import type { CameraStatus, DevicesTopic, LaneStatus, LongAction, SyncStatus } from './types.ts';

export interface Session {
  token: string;
  userId: string;
  displayName: string;
  roles: string[];
  manager: boolean;
}

export type ScreenId = 'store' | 'drive-thru' | 'verification' | 'devices' | 'cameras' | 'sync' | 'timeclock';

export type FeedStatus = 'idle' | 'connecting' | 'open' | 'retrying';

export interface Topics {
  sync: SyncStatus | null;
  devices: DevicesTopic | null;
  /** undefined: not heard yet; null: no lane camera. */
  drive_thru: LaneStatus | null | undefined;
  cameras: CameraStatus[] | null;
  actions: LongAction[];
}

export interface AppState {
  session: Session | null;
  screen: ScreenId;
  feed: FeedStatus;
  topics: Topics;
  /** When each topic last changed (ms), so ticking figures can count from it. */
  topicAt: Partial<Record<keyof Topics, number>>;
  mismatches: readonly Mismatch[];
  /** The pickup checks heard on the feed this page, newest first. */
  verifications: readonly VerificationPayload[];
  /** Order numbers by id, for banners that only have an order's id. */
  orderNumbers: Readonly<Record<string, string>>;
  /** The store's IANA time zone, once read: the kiosk shows times on the store's clock. */
  timeZone: string | undefined;
}

export const emptyTopics: Topics = {
  sync: null,
  devices: null,
  drive_thru: undefined,
  cameras: null,
  actions: [],
};

type Listener = () => void;

export function createStore<T>(initial: T) {
  let state = initial;
  const listeners = new Set<Listener>();
  return {
    get: () => state,
    set(update: Partial<T> | ((current: T) => Partial<T>)) {
      const patch = typeof update === 'function' ? update(state) : update;
      state = { ...state, ...patch };
      for (const listener of listeners) listener();
    },
    subscribe(listener: Listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const initialScreen = (): ScreenId => {
  const hash = location.hash.replace(/^#\/?/, '');
  const known: ScreenId[] = [
    'store',
    'drive-thru',
    'verification',
    'devices',
    'cameras',
    'sync',
    'timeclock',
  ];
  return (known as string[]).includes(hash) ? (hash as ScreenId) : 'store';
};

export const store = createStore<AppState>({
  session: null,
  screen: initialScreen(),
  feed: 'idle',
  topics: emptyTopics,
  topicAt: {},
  mismatches: [],
  verifications: [],
  orderNumbers: {},
  timeZone: undefined,
});

/** Remembers the numbers of orders seen (an order event or a list), for naming them by number. */
export function rememberOrderNumbers(orders: ReadonlyArray<{ id?: unknown; number?: unknown }>) {
  const known = store.get().orderNumbers;
  const fresh = orders.filter(
    (o): o is { id: string; number: string } =>
      typeof o.id === 'string' && typeof o.number === 'string' && known[o.id] !== o.number,
  );
  if (fresh.length === 0) return;
  store.set((s) => ({
    orderNumbers: { ...s.orderNumbers, ...Object.fromEntries(fresh.map((o) => [o.id, o.number])) },
  }));
}

/** A slice of the state; re-renders when the slice changes (compared with Object.is). */
export function useStore<S>(select: (state: AppState) => S): S {
  const [slice, setSlice] = useState(() => select(store.get()));
  useEffect(() => {
    const update = () => setSlice(() => select(store.get()));
    update();
    return store.subscribe(update);
    // The selector is written inline by callers; the store's change is what matters.
  }, []);
  return slice;
}

export function setTopic<K extends keyof Topics>(topic: K, data: Topics[K]) {
  store.set((s) => ({
    topics: { ...s.topics, [topic]: data },
    topicAt: { ...s.topicAt, [topic]: Date.now() },
  }));
}

export function navigate(screen: ScreenId) {
  if (location.hash !== `#/${screen}`) history.replaceState(null, '', `#/${screen}`);
  store.set({ screen });
}

/** Store events (`{ kind: 'event' }` feed messages) for the screens that follow them. */
export interface StoreEvent {
  seq: number;
  type: string;
  occurred_at: string;
  data: unknown;
}

const eventListeners = new Set<(event: StoreEvent) => void>();

export function publishEvent(event: StoreEvent) {
  for (const listener of eventListeners) listener(event);
}

/** Follows store events while the component is mounted; `types` are prefixes like `order.`. */
export function useEvents(types: readonly string[], listener: (event: StoreEvent) => void) {
  useEffect(() => {
    const wrapped = (event: StoreEvent) => {
      if (types.some((t) => event.type.startsWith(t))) listener(event);
    };
    eventListeners.add(wrapped);
    return () => {
      eventListeners.delete(wrapped);
    };
  });
}
