import { connect, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, echoUpstream, SECURITY, type TestEdge, testEdge } from './edge-support.ts';

describe('the edge router in front of an echoing upstream', () => {
  let upstream: Awaited<ReturnType<typeof echoUpstream>>;
  let edge: TestEdge;
  let client = 0;
  // Each test its own client address, so the limiter (tested on its own below) stays out of the way.
  const fresh = () => ({ 'cf-connecting-ip': `198.51.100.${++client}` });

  beforeAll(async () => {
    upstream = await echoUpstream();
    edge = await testEdge(upstream.url);
  });
  afterAll(async () => {
    await edge.stop();
    await upstream.close();
  });
  // Each test looks only at the requests it sent: the upstream is the file's, its record is the test's.
  beforeEach(() => {
    upstream.seen.length = 0;
  });

  it('answers GET /health with 200 OK, whatever the host, uncounted', async () => {
    for (const host of ['alpha.edge.test', 'edge.test', '127.0.0.1']) {
      const answer = await call(edge.port, { path: '/health', host });
      expect(answer.status).toBe(200);
      expect(answer.body).toBe('OK');
      expect(answer.headers).toMatchObject(SECURITY);
      expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('answers 400 Invalid tenant when the host names no tenant under the service domain', async () => {
    for (const host of [
      'edge.test',
      'edge.test:8080',
      'alpha.other.test',
      'alpha.edge.test.evil.test',
      'Alpha.edge.test',
      'al_pha.edge.test',
      'al%70ha.edge.test',
      '.edge.test',
      '127.0.0.1',
      '[::1]:8080',
    ]) {
      const answer = await call(edge.port, { path: '/api/v1/echo', host, headers: fresh() });
      expect(answer.status, host).toBe(400);
      expect(answer.body).toBe('Invalid tenant');
      expect(answer.headers).toMatchObject(SECURITY);
    }
    expect(upstream.seen.filter((s) => s.url === '/api/v1/echo')).toEqual([]);
  });

  it('takes the tenant from the first label, with a port and a domain in any case', async () => {
    for (const [host, tenant] of [
      ['alpha.edge.test', 'alpha'],
      ['bravo-2.EDGE.test:8080', 'bravo-2'],
      ['0.edge.test', '0'],
    ]) {
      const answer = await call(edge.port, { path: '/api/v1/echo', host, headers: fresh() });
      expect(answer.status, host).toBe(201);
      expect(JSON.parse(answer.body).headers['x-tenant-id']).toBe(tenant);
    }
  });

  it('forwards /api/v1/* with its query, method, body and headers, adding the tenant and the original host', async () => {
    const answer = await call(edge.port, {
      method: 'POST',
      path: '/api/v1/echo?a=1&b=two%20words&a=3',
      host: 'alpha.edge.test:9999',
      headers: {
        ...fresh(),
        'content-type': 'application/json',
        'x-tenant-id': 'bravo',
        'x-forwarded-host': 'spoofed.test',
        'x-custom': 'kept',
        connection: 'keep-alive, x-hop',
        'x-hop': 'dropped',
      },
      body: '{"hello":"world"}',
    });
    expect(answer.status).toBe(201);
    const seen = JSON.parse(answer.body);
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/api/v1/echo?a=1&b=two%20words&a=3');
    expect(seen.headers).toMatchObject({
      'x-tenant-id': 'alpha',
      'x-forwarded-host': 'alpha.edge.test:9999',
      host: 'alpha.edge.test:9999',
      'x-custom': 'kept',
      'cf-connecting-ip': `198.51.100.${client}`,
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'content-length': '17',
    });
    expect(seen.headers['x-hop']).toBeUndefined();
  });

  it('gives back the gateway’s status, end-to-end headers (every Set-Cookie) and body, with its own headers over them', async () => {
    const answer = await call(edge.port, { path: '/api/v1/echo', headers: fresh() });
    expect(answer.status).toBe(201);
    expect(answer.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(answer.headers['x-upstream']).toBe('echo');
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers).toMatchObject({
      ...SECURITY,
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '99',
      'x-ratelimit-reset': String(Math.ceil((edge.clock.now().getTime() + 60_000) / 1000)),
    });
    // The gateway's keep-alive is about its connection to us, not ours to the client.
    expect(answer.headers['keep-alive']).not.toBe('timeout=5');
    expect(answer.headers['x-gateway-hop']).toBeUndefined();
    // Ours replace the gateway's, rather than going out beside them.
    expect(answer.headers['x-frame-options']).toBe('DENY');
  });

  it('answers 404 Not Found for any other path, and for /api/v1 without its slash', async () => {
    for (const path of ['/', '/api', '/api/v1', '/api/v2/echo', '/v1/auth/login', '/staticfile', '/HEALTH']) {
      const answer = await call(edge.port, { path, headers: fresh() });
      expect(answer.status, path).toBe(404);
      expect(answer.body).toBe('Not Found');
      expect(answer.headers).toMatchObject({ ...SECURITY, 'x-ratelimit-limit': '100' });
    }
  });

  it('answers a malformed request with 400 and the security headers', async () => {
    const socket = connect(edge.port, '127.0.0.1');
    socket.end('GET /api/v1/echo HTTP/1.1\r\nHost alpha.edge.test\r\n\r\n');
    const raw = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      socket.on('close', () => resolve(text));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    for (const [name, value] of Object.entries(SECURITY)) expect(raw).toContain(`${name}: ${value}\r\n`);
  });

  it('answers 404 for a non-websocket upgrade path and 400 for another protocol', async () => {
    const other = await call(edge.port, {
      path: '/api/v1/echo',
      headers: { ...fresh(), connection: 'Upgrade', upgrade: 'h2c' },
    });
    expect(other.status).toBe(400);
    expect(other.headers).toMatchObject(SECURITY);
    const notApi = await call(edge.port, {
      path: '/chat',
      headers: {
        ...fresh(),
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    expect(notApi.status).toBe(404);
    expect(notApi.body).toBe('Not Found');
    expect(notApi.headers).toMatchObject(SECURITY);
  });
});

describe('the edge router when the gateway is down or silent', () => {
  it('answers 502 Bad Gateway at once when nothing listens at the gateway’s port', async () => {
    const probe = createServer();
    const port = await new Promise<number>((resolve) =>
      probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)),
    );
    await new Promise((resolve) => probe.close(resolve));
    const edge = await testEdge(`http://127.0.0.1:${port}`);
    try {
      const started = Date.now();
      const answer = await call(edge.port, {
        path: '/api/v1/anything',
        method: 'POST',
        body: 'x'.repeat(1000),
      });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(answer.status).toBe(502);
      expect(answer.body).toBe('Bad Gateway');
      expect(answer.headers).toMatchObject({ ...SECURITY, 'x-ratelimit-limit': '100' });
    } finally {
      await edge.stop();
    }
  });

  it('answers 504 Gateway Timeout when the gateway does not answer within the upstream timeout', async () => {
    const upstream = await echoUpstream();
    const edge = await testEdge(upstream.url, { EDGE_UPSTREAM_TIMEOUT_MS: '300' });
    try {
      const started = Date.now();
      const answer = await call(edge.port, { path: '/api/v1/silent' });
      const took = Date.now() - started;
      expect(answer.status).toBe(504);
      expect(answer.body).toBe('Gateway Timeout');
      expect(answer.headers).toMatchObject(SECURITY);
      expect(took).toBeGreaterThanOrEqual(250);
      expect(took).toBeLessThan(2000);
    } finally {
      await edge.stop();
      await upstream.close();
    }
  });

  it('answers 504 to a WebSocket upgrade the gateway leaves unanswered', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    const port = await new Promise<number>((resolve) =>
      silent.listen(0, '127.0.0.1', () => resolve((silent.address() as { port: number }).port)),
    );
    const edge = await testEdge(`http://127.0.0.1:${port}`, { EDGE_UPSTREAM_TIMEOUT_MS: '300' });
    try {
      const answer = await call(edge.port, {
        path: '/api/v1/chat/ws',
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      expect(answer.status).toBe(504);
      expect(answer.body).toBe('Gateway Timeout');
      expect(answer.headers).toMatchObject({ ...SECURITY, 'x-ratelimit-limit': '100' });
    } finally {
      await edge.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
