/**
 * The webhook benchmark's receiver, in a process of its own: RECEIVER_ENDPOINTS loopback servers,
 * one port each, so every subscription is an origin of its own as separate customers' endpoints
 * are (undici pools connections per origin). The path says how to answer: `/ok/<i>` 200,
 * `/fail/<i>` 500, `/hang/<i>` never (the sender's time-out ends it). Each request is stamped when
 * its body has arrived, on the wall clock at sub-millisecond resolution (timeOrigin + now, which
 * the bench can compare with its own), and kept with its endpoint, event id and delivery id.
 * A control port answers the clock, counts, the records, and a reset (see ./receiver-control.ts).
 * Prints `{"port":<control>,"endpoints":[<port>, ...]}`; stops on SIGTERM, SIGINT or stdin's end.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceiverRecords } from './receiver-control.ts';

const endpoints = Number(process.env.RECEIVER_ENDPOINTS || 100);
const stamp = () => performance.timeOrigin + performance.now();

let records: ReceiverRecords = { t: [], endpoint: [], event: [], delivery: [], status: [] };
let okDeliveries = new Set<string>();
let lastOkAt = 0;

const ANSWERS: Record<string, number | 'hang'> = { ok: 200, fail: 500, hang: 'hang' };

/** Both envelopes open with the event id (`{"id":"…"`): read it without parsing the whole body. */
function eventIdOf(body: string) {
  if (body.startsWith('{"id":"')) return body.slice(7, body.indexOf('"', 7));
  return String((JSON.parse(body) as { id?: unknown }).id);
}

function receive(request: IncomingMessage, response: ServerResponse) {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const at = stamp();
    const [, kind = '', index = '-1'] = (request.url ?? '').split('/');
    const answer = ANSWERS[kind] ?? 404;
    const delivery = String(request.headers['x-service-delivery'] ?? '');
    records.t.push(at);
    records.endpoint.push(Number(index));
    records.event.push(eventIdOf(Buffer.concat(chunks).toString('utf8')));
    records.delivery.push(delivery);
    records.status.push(answer === 'hang' ? 0 : answer);
    if (answer === 'hang') return;
    if (answer === 200) {
      okDeliveries.add(delivery);
      lastOkAt = at;
    }
    response.writeHead(answer, { 'content-type': 'text/plain' });
    response.end(answer === 200 ? 'ok' : 'no');
  });
}

function json(response: ServerResponse, value: unknown) {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

function control(request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? '/', 'http://control');
  if (url.pathname === '/now') return json(response, { now: stamp() });
  if (url.pathname === '/stats')
    return json(response, {
      requests: records.t.length,
      ok_deliveries: okDeliveries.size,
      last_ok_at: lastOkAt,
    });
  if (url.pathname === '/records') {
    const from = Number(url.searchParams.get('from') ?? 0);
    const slice = <T>(list: T[]) => list.slice(from);
    return json(response, {
      t: slice(records.t),
      endpoint: slice(records.endpoint),
      event: slice(records.event),
      delivery: slice(records.delivery),
      status: slice(records.status),
    });
  }
  if (url.pathname === '/reset' && request.method === 'POST') {
    records = { t: [], endpoint: [], event: [], delivery: [], status: [] };
    okDeliveries = new Set();
    lastOkAt = 0;
    return json(response, { reset: true });
  }
  response.writeHead(404).end();
}

async function listen(server: Server) {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const servers = Array.from({ length: endpoints }, () => createServer(receive));
const controlServer = createServer(control);
const ports = await Promise.all(servers.map(listen));
const controlPort = await listen(controlServer);
process.stdout.write(`${JSON.stringify({ port: controlPort, endpoints: ports })}\n`);

// Hanging requests keep their sockets: close them, or the servers never finish closing.
const shutdown = () => {
  for (const server of [...servers, controlServer]) server.closeAllConnections();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
process.stdin.once('end', shutdown).resume();
