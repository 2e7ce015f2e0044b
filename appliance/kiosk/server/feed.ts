import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { Counter } from '../../../shared/http/numbers.ts';
import type { StaffAuth } from '../../auth/index.ts';
import type { EventPoller } from '../../kitchen/index.ts';
import { tokenFromQuery } from '../../kitchen/index.ts';
import type { createTopicWatcher } from './topics.ts';

/** The close code a screen takes as "sign in again" (4000 + the HTTP status it stands for). */
export const SESSION_ENDED = 4401;
/** A screen this far behind is not keeping up; it reconnects with `after` instead. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export interface KioskFeedOptions {
  auth: StaffAuth;
  events: EventPoller;
  topics: ReturnType<typeof createTopicWatcher>;
  /** How often a connected screen's session is checked again (sign-out, expiry, disabled staff). */
  sessionCheckMs?: number;
}

const FeedQuerySchema = Type.Object(
  {
    access_token: Type.String({ minLength: 1, description: 'The staff session’s access token' }),
    after: Type.Optional(Counter({ description: 'Replay the store events after this seq first' })),
  },
  { additionalProperties: false },
);

function bearer(request: FastifyRequest) {
  return request.headers.authorization?.slice('Bearer '.length) ?? '';
}

/**
 * `GET /v1/kiosk/feed`: one WebSocket for everything the operator screens show live. Store events
 * as `{kind: 'event', seq, type, occurred_at, data}` (the same rows as the KDS feed), and state
 * topics as `{kind: 'state', topic, data}`: every topic on connect, then each change.
 */
export async function kioskFeedRoutes(app: FastifyInstance, opts: KioskFeedOptions) {
  if (!app.hasDecorator('websocketServer')) await app.register(websocket);
  const sessionCheckMs = opts.sessionCheckMs ?? 2_000;

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/feed',
    {
      websocket: true,
      onRequest: [tokenFromQuery, app.authenticate()],
      schema: {
        tags: ['kiosk'],
        summary: 'WebSocket feed of the operator screens: store events and state topics',
        description:
          'Token in `access_token` (browsers cannot set headers on a WebSocket). Messages: `{kind: "event", seq, type, occurred_at, data}` for each committed store event; `{kind: "state", topic, data}` for topics `sync`, `devices`, `drive_thru`, `cameras` and `actions`, all on connect and then on change. Closed with 4401 when the session ends.',
        querystring: FeedQuerySchema,
      },
    },
    (socket: WebSocket, request) => {
      const send = (message: string) => {
        if (socket.bufferedAmount > MAX_BUFFERED_BYTES) socket.close(1013, 'too far behind');
        else socket.send(message);
      };
      const token = bearer(request);
      const stopEvents = opts.events.subscribe(
        (message) => send(`{"kind":"event",${message.slice(1)}`),
        request.query.after,
      );
      const stopTopics = opts.topics.subscribe((message) => send(JSON.stringify(message)));
      const check = setInterval(() => {
        opts.auth.authenticate(token).catch(() => socket.close(SESSION_ENDED, 'session ended'));
      }, sessionCheckMs);
      socket.on('close', () => {
        clearInterval(check);
        stopEvents();
        stopTopics();
      });
    },
  );
}
