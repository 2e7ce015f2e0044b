import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type ChatCloud, chatCloud, type Frame } from '../chat/chat-cloud.ts';
import { call, SECURITY, type TestEdge, testEdge } from './edge-support.ts';

/** A chat socket opened through the router under a tenant's host name, keeping every frame. */
class EdgeSocket {
  readonly frames: Frame[] = [];
  readonly socket: WebSocket;
  readonly upgraded: Promise<IncomingMessage>;

  constructor(port: number, host: string, path = '/api/v1/chat/ws') {
    this.socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers: { host } });
    this.upgraded = new Promise((resolve, reject) => {
      this.socket.once('upgrade', resolve);
      this.socket.once('unexpected-response', (_request, response) =>
        reject(Object.assign(new Error(`answered ${response.statusCode}`), { response })),
      );
      this.socket.once('error', reject);
    });
    this.socket.on('message', (data) => this.frames.push(JSON.parse(data.toString()) as Frame));
  }

  send(frame: object) {
    this.socket.send(JSON.stringify(frame));
  }

  async frame(match: (frame: Frame) => boolean, what: string) {
    const deadline = Date.now() + 3000;
    while (!this.frames.some(match)) {
      if (Date.now() > deadline) throw new Error(`no ${what}; frames: ${JSON.stringify(this.frames)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.frames.find(match)!;
  }
}

describe('the edge router in front of the real gateway', () => {
  let c: ChatCloud;
  let edge: TestEdge;
  const sockets: EdgeSocket[] = [];
  let client = 0;
  // Each test its own client address, so the limiter's counts are of that test's calls alone.
  beforeEach(() => {
    client += 1;
  });
  const api = (method: string, path: string, token: string, body?: object) =>
    call(edge.port, {
      method,
      path: `/api/v1/chat${path}`,
      headers: {
        'cf-connecting-ip': `198.51.100.${client}`,
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const open = async (token: string) => {
    const socket = new EdgeSocket(edge.port, 'alpha.edge.test');
    sockets.push(socket);
    await socket.upgraded;
    socket.send({ type: 'auth', token });
    await socket.frame((f) => f.type === 'auth_ok', 'auth_ok');
    return socket;
  };

  beforeAll(async () => {
    c = await chatCloud('sqlite');
    edge = await testEdge(`http://127.0.0.1:${c.port}`);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.socket.terminate();
    await edge.stop();
    await c.cloud.close();
  });

  it('forwards an authenticated API call and gives back the gateway’s answer with the router’s headers', async () => {
    const answer = await api('GET', '/config', c.ann.token);
    expect(answer.status, answer.body).toBe(200);
    expect(answer.headers).toMatchObject({
      ...SECURITY,
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '99',
      'x-ratelimit-reset': String(Math.ceil((edge.clock.now().getTime() + 60_000) / 1000)),
    });
    // The gateway saw the host the client used, so the socket address it hands out goes through us too.
    expect(JSON.parse(answer.body).data.websocket_url).toBe(`ws://alpha.edge.test/api/v1/chat/ws`);
  });

  it('passes the gateway’s own refusals through: 401 without a token, 404 for an unknown route', async () => {
    const unauthenticated = await call(edge.port, { path: '/api/v1/chat/config' });
    expect(unauthenticated.status).toBe(401);
    expect(JSON.parse(unauthenticated.body).error.code).toBeDefined();
    expect(unauthenticated.headers).toMatchObject(SECURITY);
    const unknown = await call(edge.port, { path: '/api/v1/no-such-route' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers).toMatchObject(SECURITY);
  });

  it('carries chat frames both ways over WebSockets opened through the router', async () => {
    const ann = await open(c.ann.token);
    const bob = await open(c.bob.token);
    const upgrade = await ann.upgraded;
    expect(upgrade.headers).toMatchObject({ ...SECURITY, 'x-ratelimit-limit': '100' });
    ann.send({ type: 'ping' });
    await ann.frame((f) => f.type === 'pong', 'pong');
    const created = await api('POST', '/channels', c.ann.token, {
      type: 'private',
      name: 'Through the edge',
      member_user_ids: [c.bob.id],
    });
    expect(created.status, created.body).toBe(201);
    const room = JSON.parse(created.body).data;
    const sent = await api('POST', `/channels/${room.id}/messages`, c.ann.token, { content: 'fries are up' });
    expect(sent.status, sent.body).toBe(201);
    for (const socket of [ann, bob]) {
      const frame = await socket.frame((f) => f.type === 'message', 'message frame');
      expect(frame).toMatchObject({
        type: 'message',
        channel_id: room.id,
        message: { content: 'fries are up' },
      });
    }
    // A frame from a client changes what another one hears: bob going away reaches ann.
    ann.send({ type: 'presence_subscribe', user_ids: [c.bob.id] });
    bob.send({ type: 'presence', status: 'away' });
    await ann.frame(
      (f) => f.type === 'presence' && f.user_id === c.bob.id && f.status === 'away',
      'bob away',
    );
  });

  it('gives back the gateway’s refusal of an upgrade, and 400 for a host naming no tenant', async () => {
    const refused = await call(edge.port, {
      path: '/api/v1/chat/ws',
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '99',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatch(/Sec-WebSocket-Version/);
    expect(refused.headers).toMatchObject(SECURITY);
    const bad = new EdgeSocket(edge.port, 'edge.test');
    const invalid = await bad.upgraded.catch((error: { response: IncomingMessage }) => error.response);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers).toMatchObject(SECURITY);
  });

  it('closes the chat sockets it carries when it stops', async () => {
    const other = await testEdge(`http://127.0.0.1:${c.port}`);
    const socket = new EdgeSocket(other.port, 'alpha.edge.test');
    await socket.upgraded;
    const closed = new Promise((resolve) => socket.socket.once('close', resolve));
    await other.stop();
    await closed;
  });
});
