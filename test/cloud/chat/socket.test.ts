import { connect as netConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import { type ChatCloud, Client, chatCloud, connect, type Frame, ok, sleep } from './chat-cloud.ts';

describe.each(backends)('the chat WebSocket on %s', (backend) => {
  let c: ChatCloud;
  const clients: Client[] = [];
  beforeAll(async () => {
    c = await chatCloud(backend);
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await c.cloud.close();
  });

  const client = () => {
    const made = new Client(c.wsUrl);
    clients.push(made);
    return made;
  };
  const as = async (user: ChatCloud['ann']) => {
    const made = await connect(c.wsUrl, user);
    clients.push(made);
    return made;
  };
  const messagesOf = (cl: Client) => cl.frames.filter((f) => f.type === 'message');

  it('answers a valid auth frame with auth_ok naming the user', async () => {
    const ws = client();
    await ws.opened;
    ws.send({ type: 'auth', token: c.ann.token });
    expect(await ws.frame((f) => f.type === 'auth_ok', 'auth_ok')).toEqual({
      type: 'auth_ok',
      user_id: c.ann.id,
      tenant_id: c.a.tenant.id,
    });
    // auth_ok is the first frame; the user's own presence follows it.
    expect(ws.frames[0]?.type).toBe('auth_ok');
    await ws.frame((f) => f.type === 'presence' && f.user_id === c.ann.id, 'own presence');
    ws.send({ type: 'ping' });
    await ws.frame((f) => f.type === 'pong', 'pong');
  });

  it('closes with 4401 on a bad token, a refresh token, or a first frame that is not auth', async () => {
    for (const first of [
      { type: 'auth', token: 'not-a-token' },
      { type: 'auth', token: `${c.ann.token.slice(0, -4)}AAAA` },
      { type: 'auth' },
      { type: 'presence', status: 'away' },
      'not json',
    ]) {
      const ws = client();
      await ws.opened;
      ws.send(first);
      expect((await ws.closedWith()).code, JSON.stringify(first)).toBe(4401);
      expect(ws.frames).toEqual([]);
    }
  });

  it('closes with 4401 when the token’s session has ended (logout)', async () => {
    const dan = await c.user(c.a.tenant.id, 'dan@alpha.test');
    const logout = await c.cloud.app.inject({
      method: 'POST',
      url: '/v1/auth/logout',
      headers: { authorization: `Bearer ${dan.token}` },
    });
    expect(logout.statusCode, logout.body).toBeLessThan(300);
    const ws = client();
    await ws.opened;
    ws.send({ type: 'auth', token: dan.token });
    expect((await ws.closedWith()).code).toBe(4401);
  });

  it('closes an open connection with 4401 at the next heartbeat once its session ended', async () => {
    const eve = await c.user(c.a.tenant.id, 'logout-at-heartbeat@alpha.test');
    const ws = await as(eve);
    await c.cloud.services.chat.heartbeat();
    await sleep(100); // its pong
    expect(ws.closed).toBeUndefined();
    const logout = await c.cloud.app.inject({
      method: 'POST',
      url: '/v1/auth/logout',
      headers: { authorization: `Bearer ${eve.token}` },
    });
    expect(logout.statusCode, logout.body).toBeLessThan(300);
    await c.cloud.services.chat.heartbeat();
    const closed = await ws.closedWith();
    expect(closed.code).toBe(4401);
    expect(closed.reason).toBe('session ended');
  });

  it('closes with 4408 a connection that does not authenticate in time', async () => {
    // The server's deadline runs from its accept, before the client hears it opened: time it
    // from before connecting, or a slow open makes the close look early.
    const started = Date.now();
    const ws = client();
    await ws.opened;
    expect((await ws.closedWith()).code).toBe(4408);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('sends every message to every open connection of every member, and to nobody else', async () => {
    const room = ok(
      await c.ann.call('POST', '/channels', {
        type: 'private',
        name: 'Kitchen',
        member_user_ids: [c.bob.id],
      }),
      201,
    );
    const [annTab1, annTab2, bobTab1, bobTab2, bobTab3, cat, zed] = await Promise.all([
      as(c.ann),
      as(c.ann),
      as(c.bob),
      as(c.bob),
      as(c.bob),
      as(c.cat),
      as(c.zed),
    ]);
    const sent = ok(
      await c.ann.call('POST', `/channels/${room.id}/messages`, { content: 'fries are up' }),
      201,
    );
    for (const tab of [annTab1, annTab2, bobTab1, bobTab2, bobTab3]) {
      const frame = await tab.frame((f) => f.type === 'message', 'message frame');
      expect(frame).toEqual({ type: 'message', channel_id: room.id, message: sent });
    }
    // A later message reaching cat proves cat's socket was live when the first one was not sent.
    const direct = ok(await c.ann.call('POST', '/direct', { user_id: c.cat.id }), 201);
    ok(await c.ann.call('POST', `/channels/${direct.id}/messages`, { content: 'hi cat' }), 201);
    await cat.frame((f) => f.type === 'message', 'direct message');
    expect(messagesOf(cat).map((f) => (f.message as { content: string }).content)).toEqual(['hi cat']);
    expect(messagesOf(bobTab1)).toHaveLength(1);
    await sleep(100);
    expect(messagesOf(zed)).toEqual([]);
  });

  it('delivers system messages of the incident flow and incident frames to the channel’s members only', async () => {
    const chat = c.cloud.services.chat;
    const [bob, cat, zed] = await Promise.all([as(c.bob), as(c.cat), as(c.zed)]);
    const channel = await chat.createIncidentChannel(c.a.tenant.id, {
      incident_id: '0195d6a1-0000-7000-8000-0000000000a1',
      name: 'INC-1 fryer',
      topic: 'Fryer 2 over temperature',
      member_user_ids: [c.bob.id],
    });
    await chat.postSystemMessage(c.a.tenant.id, channel.id, 'Summary: fryer 2 at 210 °C');
    const reached = await chat.broadcastIncident(c.a.tenant.id, {
      incident_id: '0195d6a1-0000-7000-8000-0000000000a1',
      channel_id: channel.id,
      status: 'open',
      title: 'Fryer 2 over temperature',
    });
    expect(reached).toBeGreaterThanOrEqual(1);
    const frame = await bob.frame((f) => f.type === 'incident', 'incident frame');
    expect(frame).toMatchObject({ type: 'incident', channel_id: channel.id, status: 'open' });
    await bob.frame(
      (f) => f.type === 'message' && (f.message as { kind: string }).kind === 'system',
      'summary',
    );
    // No channel named: the whole tenant hears it, and never the other tenant.
    await chat.broadcastIncident(c.a.tenant.id, { incident_id: 'unknown', status: 'resolved' });
    await cat.frame((f) => f.type === 'incident' && f.status === 'resolved', 'tenant-wide incident frame');
    await chat.broadcastIncident(c.b.tenant.id, { channel_id: channel.id, status: 'spoofed' });
    await sleep(100);
    expect(cat.frames.filter((f) => f.type === 'incident')).toHaveLength(1);
    expect(bob.frames.some((f) => f.status === 'spoofed')).toBe(false);
    expect(zed.frames.filter((f) => f.type === 'incident')).toEqual([
      expect.objectContaining({ type: 'incident', status: 'spoofed' }),
    ]);
  });

  it('publishes presence online, away and offline, and a reconnect within the grace period never flaps', async () => {
    const eve = await c.user(c.a.tenant.id, 'eve@alpha.test');
    const fay = await c.user(c.a.tenant.id, 'fay@alpha.test');
    ok(await eve.call('POST', '/direct', { user_id: fay.id }), 201);
    const watcher = await as(fay);
    // The direct partner is followed from the start: eve is offline until she connects.
    const presenceOfEve = () =>
      watcher.frames.filter((f: Frame) => f.type === 'presence' && f.user_id === eve.id);
    await watcher.until(() => presenceOfEve().length === 1, 'eve offline');
    expect(presenceOfEve()[0]).toMatchObject({ status: 'offline' });

    const tab = await as(eve);
    await watcher.until(() => presenceOfEve().length === 2, 'eve online');
    expect(presenceOfEve()[1]).toMatchObject({ status: 'online', at: expect.any(String) });
    tab.send({ type: 'presence', status: 'away' });
    await watcher.until(() => presenceOfEve().length === 3, 'eve away');
    expect(presenceOfEve()[2]).toMatchObject({ status: 'away' });

    // Reconnect inside the grace period (300 ms in this cloud): no offline, no second online.
    tab.close();
    await tab.closedWith();
    await sleep(50);
    const again = await as(eve);
    await sleep(500);
    expect(presenceOfEve().map((f) => f.status)).toEqual(['offline', 'online', 'away']);
    again.send({ type: 'presence', status: 'online' });
    await watcher.until(() => presenceOfEve().length === 4, 'eve back online');

    // Gone for longer than the grace period: offline.
    again.close();
    await watcher.until(() => presenceOfEve().length === 5, 'eve offline', 2000);
    expect(presenceOfEve().map((f) => f.status)).toEqual(['offline', 'online', 'away', 'online', 'offline']);
  });

  it('answers presence_subscribe with current states, within the tenant only', async () => {
    const watcher = await as(c.cat);
    await as(c.bob);
    watcher.send({ type: 'presence_subscribe', user_ids: [c.bob.id, c.zed.id] });
    await watcher.until(() => watcher.frames.filter((f) => f.type === 'presence').length >= 2, 'presence');
    const states = Object.fromEntries(
      watcher.frames.filter((f) => f.type === 'presence').map((f) => [f.user_id, f.status]),
    );
    // zed is connected in another tenant; seen from here zed does not exist, so offline.
    await as(c.zed);
    expect(states[c.bob.id]).toBe('online');
    expect(states[c.zed.id]).toBe('offline');
    await sleep(100);
    expect(watcher.frames.filter((f) => f.type === 'presence' && f.user_id === c.zed.id)).toHaveLength(1);
    watcher.send({ type: 'presence_subscribe', user_ids: 'everyone' });
    await watcher.frame((f) => f.type === 'error' && f.code === 'INVALID_FRAME', 'error frame');
    watcher.send({ type: 'shout' });
    await watcher.frame((f) => f.type === 'error' && f.code === 'UNKNOWN_FRAME', 'unknown frame');
  });

  it('drops a connection that stops answering pings', async () => {
    const ws = await as(c.cat);
    // Keep the socket open but stop its automatic pong replies.
    (
      ws.socket as unknown as { _receiver: { removeAllListeners(e: string): void } }
    )._receiver.removeAllListeners('ping');
    ws.socket.pong = () => {};
    await c.cloud.services.chat.heartbeat();
    expect(ws.closed).toBeUndefined();
    await sleep(100);
    await c.cloud.services.chat.heartbeat();
    await ws.closedWith();
    expect(ws.closed?.code).toBe(1006);
  });

  it('leaves upgrade requests for other paths to their owners', async () => {
    // Another owner on the same server (as the cockpit feed is) answers its own path.
    const other = (request: { url?: string }, socket: { end(data: string): void }) => {
      if (request.url === '/api/internal/other-feed')
        socket.end('HTTP/1.1 418 I am a teapot\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    };
    c.cloud.app.server.on('upgrade', other);
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = netConnect(c.port, '127.0.0.1', () => {
          socket.write(
            'GET /api/internal/other-feed HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
              'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
          );
        });
        let data = '';
        socket.on('data', (chunk) => {
          data += chunk.toString();
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(data));
      });
      // Only the other owner's answer: chat neither upgraded nor wrote to the socket.
      expect(answer).toBe('HTTP/1.1 418 I am a teapot\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      // And the chat path still works beside it.
      await as(c.ann);
    } finally {
      c.cloud.app.server.off('upgrade', other);
    }
  });
});
