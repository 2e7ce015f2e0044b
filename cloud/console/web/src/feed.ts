/**
 * The console feed: the cloud's WebSocket of the tenant's live frames (alerts, incidents, rollouts,
 * stores, publications). Screens listen with onFrame; the connection reconnects with a growing
 * pause and authenticates with the in-memory access token as its first frame.
 */
import { createStore, useSlice } from './store.ts';

export type Frame = { type: string } & Record<string, unknown>;

const FEED_PATH = '/api/internal/cockpit/feed';
const listeners = new Set<(frame: Frame) => void>();
const status = createStore<{ connected: boolean }>({ connected: false });

export function onFrame(listener: (frame: Frame) => void) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

export const useFeedConnected = () => useSlice(status, (s) => s.connected);

/** Connects while a session lasts; answers the function that disconnects. */
export function connectFeed(token: () => string | null, renew: () => Promise<string | null>) {
  let socket: WebSocket | undefined;
  let stopped = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const retry = () => {
    status.set({ connected: false });
    if (stopped) return;
    attempt += 1;
    timer = setTimeout(open, Math.min(15_000, 500 * 2 ** Math.min(attempt, 5)));
  };

  function open() {
    const current = token();
    if (!current || stopped) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${location.host}${FEED_PATH}`);
    socket.onopen = () => socket?.send(JSON.stringify({ type: 'auth', token: current }));
    socket.onmessage = (message) => {
      let frame: Frame;
      try {
        frame = JSON.parse(String(message.data)) as Frame;
      } catch {
        return;
      }
      if (frame.type === 'auth_ok') {
        attempt = 0;
        status.set({ connected: true });
      }
      for (const listener of listeners) listener(frame);
    };
    socket.onclose = (event) => {
      socket = undefined;
      // 4401: the token expired under the socket; renew before trying again. 4403: not allowed.
      if (event.code === 4403) return status.set({ connected: false });
      if (event.code === 4401) void renew().then(retry);
      else retry();
    };
  }

  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    socket?.close();
    status.set({ connected: false });
  };
}
