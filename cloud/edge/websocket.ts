import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { answerSocket, endToEnd, rawHead, SECURITY_HEADERS } from './answers.ts';
import { upstreamFailure } from './forward.ts';
import type { Upstream } from './upstream.ts';

/** Upgraded client sockets, so stopping the router can close them (the HTTP server no longer does). */
export type Tunnels = Set<Duplex>;

function splice(client: Duplex, gateway: Socket) {
  const close = () => {
    client.destroy();
    gateway.destroy();
  };
  client.on('error', close).on('close', close);
  gateway.on('error', close).on('close', close);
  // Frames go through as bytes: nothing is parsed, so nothing is added to their latency but a copy.
  client.pipe(gateway).pipe(client);
}

/**
 * Proxies a WebSocket upgrade to the gateway: its 101 goes back with the router's headers, then
 * the two sockets are piped together. A refusal by the gateway (401, 404) goes back as it came.
 */
export function tunnel(
  upstream: Upstream,
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  headers: string[],
  extra: Record<string, string>,
  log: Logger,
) {
  const outgoing = upstream.upgrade(req.method ?? 'GET', req.url ?? '/', [
    ...headers,
    'connection',
    'Upgrade',
    'upgrade',
    req.headers.upgrade ?? 'websocket',
  ]);
  client.once('close', () => outgoing.destroy());
  outgoing.on('error', (error) => {
    log.warn({ err: error, url: req.url }, 'gateway upgrade failed');
    const { status, body } = upstreamFailure(error);
    answerSocket(client, status, body, extra);
  });
  outgoing.on('upgrade', (response, gateway, gatewayHead) => {
    gateway.setTimeout(0);
    gateway.setNoDelay(true);
    const answer: OutgoingHttpHeaders = {
      ...endToEnd(response.headers),
      ...SECURITY_HEADERS,
      ...extra,
      connection: 'Upgrade',
      upgrade: response.headers.upgrade,
    };
    client.write(rawHead(101, answer, response.statusMessage));
    if (gatewayHead.length > 0) client.write(gatewayHead);
    if (head.length > 0) gateway.write(head);
    splice(client, gateway);
  });
  outgoing.on('response', (response) => {
    const answer = { ...endToEnd(response.headers), ...SECURITY_HEADERS, ...extra, connection: 'close' };
    client.write(rawHead(response.statusCode ?? 502, answer, response.statusMessage));
    response.pipe(client);
  });
  outgoing.end();
}
