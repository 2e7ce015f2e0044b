import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { ApplianceDatabase } from '../db/index.ts';
import * as schemas from './schemas.ts';

export interface FeedEvent {
  seq: number;
  type: string;
  occurred_at: string;
  data: unknown;
}

type Listener = (message: string) => void;
type EventRow = Omit<FeedEvent, 'data'> & { data: string };

const BATCH = 500;
/** A screen this far behind is not keeping up; it reconnects with `after` instead. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/**
 * Watches the events table by its `seq` and hands each new event to every listener, as one JSON
 * message. Reading the table rather than hooking the commands means a screen only ever sees
 * committed events, and sees those written by any process on the appliance. It polls only while
 * someone listens.
 */
export function createEventPoller(db: ApplianceDatabase, intervalMs = 25) {
  const after = db.prepare(
    'select seq, type, occurred_at, data from events where seq > ? and seq <= ? order by seq limit ?',
  );
  const lastSeq = db.prepare('select coalesce(max(seq), 0) as seq from events');
  const listeners = new Set<Listener>();
  let cursor = 0;
  let timer: NodeJS.Timeout | undefined;

  const newest = () => (lastSeq.get() as { seq: number }).seq;
  const read = (from: number, to: number) => after.all(from, to, BATCH) as EventRow[];
  const toMessage = (row: EventRow) => JSON.stringify({ ...row, data: JSON.parse(row.data) });

  function tick() {
    const rows = read(cursor, Number.MAX_SAFE_INTEGER);
    cursor = rows.at(-1)?.seq ?? cursor;
    for (const row of rows) {
      const message = toMessage(row);
      for (const listener of listeners) listener(message);
    }
  }

  function replay(listener: Listener, from: number) {
    for (let seq = from; seq < cursor; ) {
      const rows = read(seq, cursor);
      for (const row of rows) listener(toMessage(row));
      seq = rows.at(-1)?.seq ?? cursor;
    }
  }

  function stop() {
    clearInterval(timer);
    timer = undefined;
  }

  return {
    /** Listens from now on; with `from`, first replays the committed events after that seq. */
    subscribe(listener: Listener, from?: number) {
      if (listeners.size === 0) {
        cursor = newest();
        timer = setInterval(tick, intervalMs);
        timer.unref();
      }
      listeners.add(listener);
      if (from !== undefined) replay(listener, from);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stop();
      };
    },
    close() {
      listeners.clear();
      stop();
    },
  };
}

export type EventPoller = ReturnType<typeof createEventPoller>;

/**
 * Browsers cannot set headers on a WebSocket, so the feed takes its token in the query. It moves
 * to the Authorization header for the usual check, and out of the URL so no log line carries it.
 */
export async function tokenFromQuery(request: FastifyRequest) {
  const url = new URL(request.raw.url ?? '/', 'http://appliance');
  const token = url.searchParams.get('access_token');
  if (!token) return;
  request.headers.authorization = `Bearer ${token}`;
  url.searchParams.delete('access_token');
  request.raw.url = url.pathname + url.search;
}

export interface KitchenFeedOptions {
  db: ApplianceDatabase;
  /** How often to look for new events while screens are connected. */
  pollIntervalMs?: number | undefined;
}

/** `GET /kds/feed`: every order event, as it commits, to the KDS and POS screens on the LAN. */
export async function kitchenFeedRoutes(app: FastifyInstance, opts: KitchenFeedOptions) {
  if (!app.hasDecorator('websocketServer')) await app.register(websocket);
  const poller = createEventPoller(opts.db, opts.pollIntervalMs);
  app.addHook('onClose', async () => poller.close());

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/kds/feed',
    {
      websocket: true,
      onRequest: [tokenFromQuery, app.authenticate()],
      schema: {
        tags: ['kitchen'],
        summary: 'WebSocket feed of order events: {seq, type, occurred_at, data} per message',
        querystring: schemas.FeedQuerySchema,
      },
    },
    (socket: WebSocket, request) => {
      const send = (message: string) => {
        if (socket.bufferedAmount > MAX_BUFFERED_BYTES) socket.close(1013, 'too far behind');
        else socket.send(message);
      };
      const unsubscribe = poller.subscribe(send, request.query.after);
      socket.on('close', unsubscribe);
    },
  );
}
