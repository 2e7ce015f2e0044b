import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { call, closing, listening, SECURITY, type TestEdge, testEdge } from './edge-support.ts';

/**
 * A gateway written on raw sockets, so that a test chooses every byte it answers: `answer` gets
 * each request's head (the connection's number, from 1) and writes what it likes.
 */
async function rawGateway(answer: (socket: Socket, head: string, connection: number) => void) {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    const connection = ++connections;
    sockets.add(socket);
    let pending = '';
    socket.on('data', (data) => {
      pending += data.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        const head = pending.slice(0, end);
        pending = pending.slice(end + 4);
        answer(socket, head, connection);
      }
    });
    socket.on('error', () => socket.destroy()).on('close', () => sockets.delete(socket));
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const ok = (body: string) => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

let edge: TestEdge | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await edge?.stop();
  edge = undefined;
  for (const close of closers.splice(0)) await close();
});

async function routerBefore(gatewayUrl: string) {
  edge = await testEdge(gatewayUrl, { EDGE_UPSTREAM_TIMEOUT_MS: '2000' });
  return edge.port;
}

describe('the router’s own connections to the gateway', () => {
  it('passes a chunked answer on whole, with the security headers, and reuses the connection', async () => {
    const gateway = await rawGateway((socket) =>
      socket.write(
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Frame-Options: SAMEORIGIN\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n',
      ),
    );
    closers.push(gateway.close);
    const port = await routerBefore(gateway.url);
    for (let n = 0; n < 3; n++) {
      const answer = await call(port, { path: '/api/v1/x', headers: { 'cf-connecting-ip': '192.0.2.1' } });
      expect(answer).toMatchObject({ status: 200, body: 'abcdef', headers: SECURITY });
    }
    expect(gateway.connections()).toBe(1);
  });

  it('sends a GET again, once, on a new connection when the reused one was closed by the gateway meanwhile', async () => {
    // The first connection answers once, then closes on the next request without a word, as a
    // gateway does whose idle timer fired as the request was on its way.
    const gateway = await rawGateway((socket, _head, connection) => {
      const served = (socket as Socket & { served?: number }).served ?? 0;
      (socket as Socket & { served?: number }).served = served + 1;
      if (connection === 1 && served === 1) return void socket.destroy();
      socket.write(ok(`connection ${connection}`));
    });
    closers.push(gateway.close);
    const port = await routerBefore(gateway.url);
    expect((await call(port, { path: '/api/v1/x' })).body).toBe('connection 1');
    const again = await call(port, { path: '/api/v1/x' });
    expect(again).toMatchObject({ status: 200, body: 'connection 2' });
  });

  it('does not send a POST again, body or none: the gateway may have acted on it', async () => {
    const gateway = await rawGateway((socket, _head, connection) => {
      const served = (socket as Socket & { served?: number }).served ?? 0;
      (socket as Socket & { served?: number }).served = served + 1;
      if (connection === 1 && served === 1) return void socket.destroy();
      socket.write(ok(`connection ${connection}`));
    });
    closers.push(gateway.close);
    const port = await routerBefore(gateway.url);
    expect((await call(port, { path: '/api/v1/x' })).body).toBe('connection 1');
    expect(await call(port, { method: 'POST', path: '/api/v1/x' })).toMatchObject({ status: 502 });
    expect(gateway.connections()).toBe(1);
  });

  it('answers 502 to a response it cannot frame, and never reuses that connection', async () => {
    const gateway = await rawGateway((socket, head, connection) => {
      if (head.startsWith('GET /api/v1/bad'))
        return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab');
      if (head.startsWith('GET /api/v1/extra')) return void socket.write(`${ok('ab')}surplus`);
      socket.write(ok(`connection ${connection}`));
    });
    closers.push(gateway.close);
    const port = await routerBefore(gateway.url);
    const bad = await call(port, { path: '/api/v1/bad' });
    expect(bad).toMatchObject({ status: 502, body: 'Bad Gateway', headers: SECURITY });
    expect((await call(port, { path: '/api/v1/ok' })).body).toBe('connection 2');
    // Bytes past the end of an answer: that answer is whole and goes out, the connection does not stay.
    expect((await call(port, { path: '/api/v1/extra' })).body).toBe('ab');
    expect((await call(port, { path: '/api/v1/ok' })).body).toBe('connection 3');
  });

  it('passes a chunked upload on whole, and a HEAD answer without a body', async () => {
    const gateway = createHttpServer((req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      req.on('end', () => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'x-framing': req.headers['transfer-encoding'] ?? 'length',
        });
        res.end(JSON.stringify({ bytes }));
      });
    });
    await listening(gateway);
    closers.push(() => closing(gateway));
    const port = await routerBefore(`http://127.0.0.1:${(gateway.address() as { port: number }).port}`);
    const upload = await call(port, {
      method: 'POST',
      path: '/api/v1/upload',
      headers: { 'transfer-encoding': 'chunked' },
      body: 'x'.repeat(100_000),
    });
    expect(upload.status).toBe(200);
    expect(JSON.parse(upload.body)).toEqual({ bytes: 100_000 });
    expect(upload.headers['x-framing']).toBe('chunked');
    const head = await call(port, { method: 'HEAD', path: '/api/v1/upload' });
    expect(head).toMatchObject({ status: 200, body: '' });
  });
});
