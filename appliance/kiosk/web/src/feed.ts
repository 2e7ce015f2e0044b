/**
 * The store feed: one WebSocket to /v1/kiosk/feed carrying every committed store event and the
 * state topics (sync, devices, drive_thru, cameras, actions). Reconnects with backoff, resuming
 * after the last event seen; a 4401 close (token bad or expired) signs out instead.
 */
import { backoffDelay, closeAction, HEALTHY_AFTER_MS } from './lib/backoff.ts';
import { type StoreEvent, setTopic, store, type Topics } from './store.ts';
import { cameraList } from './topics.ts';

type FeedMessage = ({ kind: 'event' } & StoreEvent) | { kind: 'state'; topic: keyof Topics; data: unknown };

const TOPICS: ReadonlyArray<keyof Topics> = ['sync', 'devices', 'drive_thru', 'cameras', 'actions'];

export interface FeedHandlers {
  onEvent(event: StoreEvent): void;
  onUnauthorized(): void;
}

/**
 * The last event seq seen, kept across sign-ins on this page: the next person's feed resumes from
 * it, so a mismatch raised while nobody was signed in still reaches the screen.
 */
let lastSeq: number | undefined;

export function feedUrl(token: string, after: number | undefined) {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const params = new URLSearchParams({ access_token: token });
  if (after !== undefined) params.set('after', String(after));
  return `${scheme}://${location.host}/v1/kiosk/feed?${params}`;
}

function handle(message: FeedMessage, handlers: FeedHandlers) {
  if (message.kind === 'event') {
    if (lastSeq !== undefined && message.seq <= lastSeq) return;
    lastSeq = message.seq;
    handlers.onEvent(message);
    return;
  }
  if (message.kind !== 'state' || !TOPICS.includes(message.topic)) return;
  if (message.topic === 'cameras') setTopic('cameras', cameraList(message.data));
  else setTopic(message.topic, message.data as Topics[typeof message.topic]);
}

/** Opens the feed for `token`; the returned function closes it for good. */
export function connectFeed(token: string, handlers: FeedHandlers): () => void {
  let socket: WebSocket | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let openedAt = 0;
  let stopped = false;

  const open = () => {
    store.set({ feed: attempt === 0 ? 'connecting' : 'retrying' });
    socket = new WebSocket(feedUrl(token, lastSeq));
    socket.onopen = () => {
      openedAt = Date.now();
      store.set({ feed: 'open' });
    };
    socket.onmessage = (message) => {
      try {
        handle(JSON.parse(String(message.data)) as FeedMessage, handlers);
      } catch {
        // One bad message is not worth the connection.
      }
    };
    socket.onclose = (event) => {
      socket = undefined;
      if (stopped) return;
      if (closeAction(event.code) === 'sign-out') return handlers.onUnauthorized();
      if (openedAt && Date.now() - openedAt >= HEALTHY_AFTER_MS) attempt = 0;
      openedAt = 0;
      store.set({ feed: 'retrying' });
      timer = setTimeout(open, backoffDelay(attempt++, Math.random()));
    };
  };

  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    socket?.close(1000, 'signed out');
    store.set({ feed: 'idle' });
  };
}
