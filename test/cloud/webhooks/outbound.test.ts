import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolve } from '../../../cloud/webhooks/address-guard.ts';
import { createOutbound, type OutboundRequest } from '../../../cloud/webhooks/outbound.ts';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface TestServer {
  port: number;
  url: string;
  received: Received[];
  connections: number;
  sockets: Set<Socket>;
}

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startServer(handler: Handler): Promise<TestServer> {
  const server = createServer();
  const state: TestServer = { port: 0, url: '', received: [], connections: 0, sockets: new Set() };
  server.on('connection', (socket: Socket) => {
    state.connections++;
    state.sockets.add(socket);
    socket.on('close', () => state.sockets.delete(socket));
  });
  server.on('request', async (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    state.received.push({
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      body,
    });
    handler(request, response, body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}`;
  cleanups.push(async () => {
    for (const socket of state.sockets) socket.destroy();
    await new Promise((done) => server.close(done));
  });
  return state;
}

function outbound(options: Parameters<typeof createOutbound>[0]) {
  const created = createOutbound(options);
  cleanups.push(() => created.close());
  return created;
}

const post = (url: string, overrides: Partial<OutboundRequest> = {}): OutboundRequest => ({
  url,
  headers: { 'content-type': 'application/json', 'x-service-event': 'order.created' },
  body: '{"id":"evt_1"}',
  timeoutMs: 2_000,
  ...overrides,
});

const answer =
  (status: number, body = '', headers: Record<string, string | string[]> = {}): Handler =>
  (_request, response) => {
    response.writeHead(status, headers).end(body);
  };

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

describe('outbound sends to a reachable endpoint', () => {
  it('POSTs the body and headers and returns a 2xx with flattened headers', async () => {
    const server = await startServer(
      answer(200, '{"ok":true}', { 'set-cookie': ['a=1', 'b=2'], 'x-one': 'v' }),
    );
    const result = await outbound({ allowPrivate: true }).send(post(`${server.url}/hooks/in?x=1`));
    expect(result).toMatchObject({ kind: 'response', status: 200, body: '{"ok":true}' });
    if (result.kind !== 'response') throw new Error('expected a response');
    expect(result.headers['set-cookie']).toBe('a=1, b=2');
    expect(result.headers['x-one']).toBe('v');
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(server.received).toEqual([
      expect.objectContaining({ method: 'POST', url: '/hooks/in?x=1', body: '{"id":"evt_1"}' }),
    ]);
    expect(server.received[0]?.headers['x-service-event']).toBe('order.created');
  });

  it('returns 4xx, 429 and 5xx answers as responses', async () => {
    const sender = outbound({ allowPrivate: true });
    for (const status of [400, 404, 429, 500, 503]) {
      const server = await startServer(answer(status, `status ${status}`, { 'retry-after': '7' }));
      const result = await sender.send(post(server.url));
      expect(result).toMatchObject({ kind: 'response', status, body: `status ${status}` });
      if (status === 429) expect(result.kind === 'response' && result.headers['retry-after']).toBe('7');
    }
  });

  it('never follows a redirect', async () => {
    const target = await startServer(answer(200));
    const server = await startServer(answer(302, '', { location: `${target.url}/elsewhere` }));
    const result = await outbound({ allowPrivate: true }).send(post(server.url));
    expect(result).toMatchObject({ kind: 'response', status: 302 });
    expect(result.kind === 'response' && result.headers.location).toBe(`${target.url}/elsewhere`);
    expect(server.received).toHaveLength(1);
    expect(target.connections).toBe(0);
  });

  it('keeps only the head of a large body and can use the origin again afterwards', async () => {
    const server = await startServer((request, response) => {
      if (request.url === '/small') return void response.end('fine');
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('é'.repeat(1_000_000));
    });
    const sender = outbound({ allowPrivate: true });
    const result = await sender.send(post(`${server.url}/large`));
    expect(result.kind === 'response' && Buffer.byteLength(result.body)).toBe(4096);
    expect(result.kind === 'response' && result.body).toBe('é'.repeat(2048));
    const tiny = await outbound({ allowPrivate: true, maxResponseBytes: 3 }).send(
      post(`${server.url}/large`),
    );
    expect(tiny.kind === 'response' && tiny.body).toBe('é\uFFFD');
    expect(await sender.send(post(`${server.url}/small`))).toMatchObject({ status: 200, body: 'fine' });
  });

  it('reuses a kept-alive connection', async () => {
    const server = await startServer(answer(204));
    const sender = outbound({ allowPrivate: true });
    for (let i = 0; i < 6; i++) expect(await sender.send(post(server.url))).toMatchObject({ status: 204 });
    // undici may open a second socket while the first is still being returned to its pool.
    expect(server.connections).toBeLessThanOrEqual(2);
  });

  it('connects host names through the injected resolver', async () => {
    const server = await startServer(answer(200, 'via name'));
    const asked: string[] = [];
    const resolve: Resolve = async (hostname) => {
      asked.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const result = await outbound({ allowPrivate: true, resolve }).send(
      post(`http://hooks.test:${server.port}/`),
    );
    expect(result).toMatchObject({ kind: 'response', body: 'via name' });
    expect(asked).toEqual(['hooks.test']);
    expect(server.received[0]?.headers.host).toBe(`hooks.test:${server.port}`);
  });
});

describe('outbound failures', () => {
  it('times out a server that never answers and lets go of its socket', async () => {
    const server = await startServer(() => {});
    const result = await outbound({ allowPrivate: true }).send(post(server.url, { timeoutMs: 300 }));
    expect(result).toMatchObject({ kind: 'error', errorClass: 'timeout' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(result.latencyMs).toBeLessThan(1_500);
    const [socket] = server.sockets;
    if (socket && !socket.destroyed) await once(socket, 'close');
    expect(server.sockets.size).toBe(0);
  });

  it('times out a body that trickles in', async () => {
    const server = await startServer((_request, response) => {
      response.writeHead(200);
      const timer = setInterval(() => response.write('.'), 50);
      response.on('close', () => clearInterval(timer));
    });
    const result = await outbound({ allowPrivate: true }).send(post(server.url, { timeoutMs: 300 }));
    expect(result).toMatchObject({ kind: 'error', errorClass: 'timeout' });
  });

  it('does not let a slow origin hold up another', async () => {
    const slow = await startServer(() => {});
    const fast = await startServer(answer(200, 'quick'));
    const sender = outbound({ allowPrivate: true, connectionsPerOrigin: 1 });
    const pending = sender.send(post(slow.url, { timeoutMs: 1_500 }));
    const quick = await sender.send(post(fast.url));
    expect(quick).toMatchObject({ kind: 'response', body: 'quick' });
    expect(quick.latencyMs).toBeLessThan(1_000);
    expect(await pending).toMatchObject({ errorClass: 'timeout' });
  });

  it('classifies a closed port as connection_refused', async () => {
    const port = await closedPort();
    const result = await outbound({ allowPrivate: true }).send(post(`http://127.0.0.1:${port}/`));
    expect(result).toMatchObject({ kind: 'error', errorClass: 'connection_refused' });
  });

  it('classifies a dropped connection as connection_reset', async () => {
    const server = await startServer((request) => request.socket.destroy());
    const result = await outbound({ allowPrivate: true }).send(post(server.url));
    expect(result).toMatchObject({ kind: 'error', errorClass: 'connection_reset' });
  });

  it('classifies a failed name lookup as dns', async () => {
    const resolve: Resolve = async (hostname) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    };
    const result = await outbound({ allowPrivate: false, resolve }).send(post('https://nowhere.example/'));
    expect(result).toMatchObject({ kind: 'error', errorClass: 'dns' });
  });
});

describe('outbound refuses private targets', () => {
  it('refuses loopback, metadata and local names in every spelling, before any connection', async () => {
    const server = await startServer(answer(200));
    const sender = outbound({ allowPrivate: false });
    const port = server.port;
    const urls = [
      `http://127.0.0.1:${port}/`,
      `http://2130706433:${port}/`,
      `http://0177.0.0.1:${port}/`,
      `http://0x7f.0.0.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::ffff:7f00:1]:${port}/`,
      `http://[::1]:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${port}/`,
    ];
    for (const url of urls) {
      expect(await sender.send(post(url)), url).toMatchObject({
        kind: 'error',
        errorClass: 'blocked_address',
      });
    }
    expect(server.connections).toBe(0);
  });

  it('refuses a public-looking name that resolves to 127.0.0.1, asking DNS once', async () => {
    const server = await startServer(answer(200));
    let calls = 0;
    const resolve: Resolve = async () => {
      calls++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const result = await outbound({ allowPrivate: false, resolve }).send(
      post(`http://hooks.example.com:${server.port}/`),
    );
    expect(result).toMatchObject({ kind: 'error', errorClass: 'blocked_address' });
    expect(result.kind === 'error' && result.message).not.toContain('127.0.0.1');
    expect(calls).toBe(1);
    expect(server.connections).toBe(0);
  });

  it('refuses a rebinding answer that mixes a public and a loopback address', async () => {
    const server = await startServer(answer(200));
    const resolve: Resolve = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const result = await outbound({ allowPrivate: false, resolve }).send(
      post(`http://rebind.example:${server.port}/`),
    );
    expect(result).toMatchObject({ kind: 'error', errorClass: 'blocked_address' });
    expect(server.connections).toBe(0);
  });

  it('refuses URLs that fail the subscription rules at send time', async () => {
    const sender = outbound({ allowPrivate: true });
    for (const url of ['ftp://hooks.example.com/', 'https://u:p@hooks.example.com/', 'not a url']) {
      expect(await sender.send(post(url)), url).toMatchObject({
        kind: 'error',
        errorClass: 'blocked_address',
      });
    }
  });
});
