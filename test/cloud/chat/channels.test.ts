import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMembers, countMembers } from '../../../cloud/chat/store.ts';
import { backends } from '../../support/stores.ts';
import { type ChatCloud, chatCloud, failed, ok } from './chat-cloud.ts';

describe.each(backends)('chat channels and messages over HTTP on %s', (backend) => {
  let c: ChatCloud;
  beforeAll(async () => {
    c = await chatCloud(backend);
  });
  afterAll(() => c.cloud.close());

  const open = async (body: Record<string, unknown>, as = c.ann) =>
    ok(await as.call('POST', '/channels', { type: 'private', name: 'Ops', ...body }), 201);
  const post = (channelId: string, body: Record<string, unknown>, as = c.ann) =>
    as.call('POST', `/channels/${channelId}/messages`, body);

  it('answers the client config: derived WebSocket URL, limits and feature flags', async () => {
    const config = ok(await c.ann.call('GET', '/config'));
    expect(config).toEqual({
      websocket_url: `ws://localhost:80/api/v1/chat/ws`,
      limits: {
        max_message_size: 65536,
        max_attachments: 10,
        message_retention_days: 365,
        incident_auto_resolve_hours: 24,
        auth_timeout_ms: 300,
        presence_grace_ms: 300,
        heartbeat_ms: 30000,
      },
      feature_flags: {
        'chat.enabled': true,
        'chat.voice_transcription': true,
        'chat.ai_translation': true,
        'chat.external_bridges': false,
      },
    });
    const response = await fetch(`http://127.0.0.1:${c.port}/api/v1/chat/config`, {
      headers: { authorization: `Bearer ${c.ann.token}` },
    });
    const body = (await response.json()) as { data: { websocket_url: string } };
    expect(body.data.websocket_url).toBe(`ws://127.0.0.1:${c.port}/api/v1/chat/ws`);
    failed(await c.cloud.app.inject({ method: 'GET', url: '/api/v1/chat/config' }), 401, 'MISSING_TOKEN');
  });

  it('places a channel in the hierarchy: a location brings its brand; ids of other tenants are refused', async () => {
    const channel = await open({ location_id: c.a.location.id, department: 'Kitchen', topic: 'Line' });
    expect(channel).toMatchObject({
      type: 'private',
      brand_id: c.a.brand.id,
      location_id: c.a.location.id,
      department: 'Kitchen',
      topic: 'Line',
      my_role: 'owner',
      member_count: 1,
      created_by: c.ann.id,
    });
    const foreign = failed(
      await c.ann.call('POST', '/channels', { type: 'public', name: 'x', location_id: c.b.location.id }),
      400,
      'INVALID_REQUEST',
    );
    expect(foreign.details).toEqual([
      { field: 'body.location_id', message: 'is not a location of this tenant' },
    ]);
    const brand = failed(
      await c.ann.call('POST', '/channels', { type: 'public', name: 'x', brand_id: c.b.brand.id }),
      400,
      'INVALID_REQUEST',
    );
    expect(brand.details[0]?.field).toBe('body.brand_id');
    const typed = failed(
      await c.ann.call('POST', '/channels', { type: 'direct', name: 'x' }),
      400,
      'INVALID_REQUEST',
    );
    expect(typed.details[0]?.field).toContain('type');
    const stranger = failed(
      await c.ann.call('POST', '/channels', { type: 'private', name: 'x', member_user_ids: [c.zed.id] }),
      400,
      'INVALID_REQUEST',
    );
    expect(stranger.details[0]?.field).toBe('body.member_user_ids');
    const filtered = ok(
      await c.ann.call('GET', `/channels?department=Kitchen&location_id=${c.a.location.id}`),
    );
    expect(filtered.map((x: { id: string }) => x.id)).toEqual([channel.id]);
  });

  it('hides private channels from non-members with 404, shows public ones to everyone', async () => {
    const secret = await open({ name: 'Secret', member_user_ids: [c.bob.id] });
    const lobby = await open({ type: 'public', name: 'Lobby' });
    expect(ok(await c.bob.call('GET', `/channels/${secret.id}`))).toMatchObject({
      my_role: 'member',
      member_count: 2,
    });
    failed(await c.cat.call('GET', `/channels/${secret.id}`), 404, 'CHANNEL_NOT_FOUND');
    failed(await c.cat.call('GET', `/channels/${secret.id}/messages`), 404, 'CHANNEL_NOT_FOUND');
    failed(await post(secret.id, { content: 'hi' }, c.cat), 404, 'CHANNEL_NOT_FOUND');
    failed(await c.cat.call('GET', `/channels/${secret.id}/members`), 404, 'CHANNEL_NOT_FOUND');
    failed(
      await c.cat.call('POST', `/channels/${secret.id}/members`, { user_id: c.cat.id }),
      404,
      'CHANNEL_NOT_FOUND',
    );
    expect(ok(await c.cat.call('GET', `/channels/${lobby.id}`))).toMatchObject({ my_role: null });
    const catSees = ok(await c.cat.call('GET', '/channels?limit=200')).map((x: { id: string }) => x.id);
    expect(catSees).toContain(lobby.id);
    expect(catSees).not.toContain(secret.id);
    // Posting in a public channel joins it.
    ok(await post(lobby.id, { content: 'hello lobby' }, c.cat), 201);
    expect(ok(await c.cat.call('GET', `/channels/${lobby.id}`))).toMatchObject({ my_role: 'member' });
  });

  it('never crosses tenants: another tenant’s channel is 404 whatever its type', async () => {
    const lobby = await open({ type: 'public', name: 'Alpha lobby' });
    const secret = await open({ name: 'Alpha secret' });
    for (const id of [lobby.id, secret.id]) {
      failed(await c.zed.call('GET', `/channels/${id}`), 404, 'CHANNEL_NOT_FOUND');
      failed(await c.zed.call('GET', `/channels/${id}/messages`), 404, 'CHANNEL_NOT_FOUND');
      failed(await post(id, { content: 'x' }, c.zed), 404, 'CHANNEL_NOT_FOUND');
      failed(
        await c.zed.call('POST', `/channels/${id}/members`, { user_id: c.zed.id }),
        404,
        'CHANNEL_NOT_FOUND',
      );
      failed(await c.zed.call('DELETE', `/channels/${id}/members/${c.ann.id}`), 404, 'CHANNEL_NOT_FOUND');
    }
    const zedSees = ok(await c.zed.call('GET', '/channels?limit=200')).map((x: { id: string }) => x.id);
    expect(zedSees).not.toContain(lobby.id);
    failed(await c.zed.call('POST', '/direct', { user_id: c.ann.id }), 400, 'INVALID_REQUEST');
    await expect(c.cloud.services.chat.postSystemMessage(c.b.tenant.id, lobby.id, 'x')).rejects.toMatchObject(
      {
        status: 404,
      },
    );
  });

  it('invites, leaves and removes members; only owners change private channels; ownership passes on', async () => {
    const room = await open({ name: 'Room', member_user_ids: [c.bob.id] });
    failed(
      await c.bob.call('POST', `/channels/${room.id}/members`, { user_id: c.cat.id }),
      403,
      'CHANNEL_OWNER_REQUIRED',
    );
    failed(
      await c.bob.call('DELETE', `/channels/${room.id}/members/${c.ann.id}`),
      403,
      'CHANNEL_OWNER_REQUIRED',
    );
    const added = ok(await c.ann.call('POST', `/channels/${room.id}/members`, { user_id: c.cat.id }), 201);
    expect(added).toMatchObject({ user_id: c.cat.id, role: 'member' });
    ok(await c.ann.call('POST', `/channels/${room.id}/members`, { user_id: c.cat.id }), 200);
    const members = ok(await c.ann.call('GET', `/channels/${room.id}/members?limit=2`));
    expect(members).toHaveLength(2);
    expect((await c.ann.call('DELETE', `/channels/${room.id}/members/${c.cat.id}`)).statusCode).toBe(204);
    failed(await c.cat.call('GET', `/channels/${room.id}`), 404, 'CHANNEL_NOT_FOUND');
    // The last owner leaves: bob, the one who joined first, becomes owner.
    expect((await c.ann.call('DELETE', `/channels/${room.id}/members/${c.ann.id}`)).statusCode).toBe(204);
    expect(ok(await c.bob.call('GET', `/channels/${room.id}`))).toMatchObject({
      my_role: 'owner',
      member_count: 1,
    });
    failed(await c.ann.call('GET', `/channels/${room.id}`), 404, 'CHANNEL_NOT_FOUND');
  });

  it('keeps one direct channel per pair, whoever opens it and however often', async () => {
    const first = await c.bob.call('POST', '/direct', { user_id: c.cat.id });
    const channel = ok(first, 201);
    expect(channel).toMatchObject({ type: 'direct', member_count: 2 });
    expect(ok(await c.cat.call('POST', '/direct', { user_id: c.bob.id }), 200).id).toBe(channel.id);
    const racing = await Promise.all([
      c.ann.call('POST', '/direct', { user_id: c.cat.id }),
      c.cat.call('POST', '/direct', { user_id: c.ann.id }),
      c.ann.call('POST', '/direct', { user_id: c.cat.id }),
    ]);
    expect(new Set(racing.map((r) => r.json().data.id)).size).toBe(1);
    expect(racing.filter((r) => r.statusCode === 201)).toHaveLength(1);
    failed(await c.ann.call('GET', `/channels/${channel.id}`), 404, 'CHANNEL_NOT_FOUND');
    failed(
      await c.bob.call('POST', `/channels/${channel.id}/members`, { user_id: c.ann.id }),
      409,
      'DIRECT_CHANNEL_FIXED',
    );
    failed(
      await c.bob.call('DELETE', `/channels/${channel.id}/members/${c.bob.id}`),
      409,
      'DIRECT_CHANNEL_FIXED',
    );
    const self = failed(await c.bob.call('POST', '/direct', { user_id: c.bob.id }), 400, 'INVALID_REQUEST');
    expect(self.details[0]?.field).toBe('body.user_id');
  });

  it('accepts exactly 65,536 bytes of content and refuses 65,537 with 413 naming both sizes', async () => {
    const room = await open({ name: 'Sizes' });
    const exact = ok(await post(room.id, { content: 'a'.repeat(65_536) }), 201);
    expect(exact.content).toHaveLength(65_536);
    const over = failed(await post(room.id, { content: 'a'.repeat(65_537) }), 413, 'MESSAGE_TOO_LARGE');
    expect(over.message).toContain('65537');
    expect(over.message).toContain('65536');
    expect(over.details).toEqual([
      { field: 'body.content', message: 'is 65537 bytes; at most 65536 bytes are allowed' },
    ]);
    // Bytes, not characters: 16,384 four-byte characters fit; one more does not.
    ok(await post(room.id, { content: '😀'.repeat(16_384) }), 201);
    failed(await post(room.id, { content: `${'😀'.repeat(16_384)}a` }), 413, 'MESSAGE_TOO_LARGE');
    // Content that JSON escapes to six characters a byte still reaches the check.
    ok(await post(room.id, { content: '\u0001'.repeat(65_536) }), 201);
    failed(await post(room.id, { content: '\u0001'.repeat(65_537) }), 413, 'MESSAGE_TOO_LARGE');
    const empty = failed(await post(room.id, { content: '  ' }), 400, 'INVALID_REQUEST');
    expect(empty.details[0]?.field).toBe('body.content');
  });

  it('validates attachments field by field', async () => {
    const room = await open({ name: 'Files' });
    const attachment = {
      name: 'menu.pdf',
      content_type: 'application/pdf',
      size: 1024,
      url: 'https://files.example/menu.pdf',
    };
    const sent = ok(await post(room.id, { content: '', attachments: [attachment] }), 201);
    expect(sent.attachments).toEqual([attachment]);
    for (const [patch, field] of [
      [{ url: 'ftp://x/y' }, 'url'],
      [{ size: -1 }, 'size'],
      [{ content_type: 'pdf' }, 'content_type'],
      [{ name: '' }, 'name'],
      [{ extra: true }, 'extra'],
    ] as const) {
      const error = failed(
        await post(room.id, { content: 'x', attachments: [{ ...attachment, ...patch }] }),
        400,
        'INVALID_REQUEST',
      );
      expect(JSON.stringify(error.details)).toContain(field);
    }
    failed(
      await post(room.id, { content: 'x', attachments: Array(11).fill(attachment) }),
      400,
      'INVALID_REQUEST',
    );
  });

  it('threads replies under a top-level message of the same channel, and pages by keyset', async () => {
    const room = await open({ name: 'Threads', member_user_ids: [c.bob.id] });
    const other = await open({ name: 'Other' });
    const head = ok(await post(room.id, { content: 'head' }), 201);
    const replies = [];
    for (let n = 0; n < 3; n++) {
      replies.push(ok(await post(room.id, { content: `reply ${n}`, thread_id: head.id }, c.bob), 201));
      c.cloud.clock.advance(1000);
    }
    for (let n = 0; n < 4; n++) ok(await post(room.id, { content: `top ${n}` }), 201);
    failed(await post(room.id, { content: 'x', thread_id: replies[0].id }), 400, 'INVALID_REQUEST');
    const foreign = failed(
      await post(other.id, { content: 'x', thread_id: head.id }),
      400,
      'INVALID_REQUEST',
    );
    expect(foreign.details).toEqual([
      { field: 'body.thread_id', message: 'is not a top-level message of this channel' },
    ]);

    const first = await c.ann.call('GET', `/channels/${room.id}/messages?limit=3`);
    const page1 = ok(first);
    expect(page1.map((m: { content: string }) => m.content)).toEqual(['top 3', 'top 2', 'top 1']);
    const cursor = first.json().meta.pagination.next_cursor;
    const page2 = ok(await c.ann.call('GET', `/channels/${room.id}/messages?limit=3&cursor=${cursor}`));
    expect(page2.map((m: { content: string }) => m.content)).toEqual(['top 0', 'head']);
    expect(page2[1]).toMatchObject({ reply_count: 3, last_reply_at: replies[2].created_at });
    const thread = ok(await c.ann.call('GET', `/channels/${room.id}/messages?thread_id=${head.id}`));
    expect(thread.map((m: { content: string }) => m.content)).toEqual(['reply 2', 'reply 1', 'reply 0']);
    expect(thread[0]).toMatchObject({ thread_id: head.id, author_id: c.bob.id, kind: 'user' });
  });

  it('deletes messages past retention with the sweeper, keeping a thread head while its replies live', async () => {
    const room = await open({ name: 'Retention' });
    const { clock, services } = c.cloud;
    const start = clock.now();
    const tenantId = c.a.tenant.id;
    const say = (content: string, thread_id?: string) =>
      services.chat.postMessage(tenantId, c.ann.id, room.id, {
        content,
        ...(thread_id ? { thread_id } : {}),
      });
    const list = async (threadId?: string) =>
      (await services.chat.listMessages(tenantId, c.ann.id, room.id, { limit: 50, threadId })).items.map(
        (m) => m.id,
      );
    try {
      const old = await say('old');
      const oldHead = await say('old head');
      clock.advance(200 * 86_400_000);
      const reply = await say('reply later', oldHead.id);
      clock.advance(165 * 86_400_000);
      await services.chat.sweep();
      expect(await list()).toEqual([oldHead.id, old.id]);
      clock.advance(1);
      expect(await services.chat.sweep()).toBeGreaterThanOrEqual(1);
      expect(await list()).toEqual([oldHead.id]);
      expect(await list(oldHead.id)).toEqual([reply.id]);
      clock.advance(200 * 86_400_000);
      expect(await services.chat.sweep()).toBeGreaterThanOrEqual(2);
      expect(await list()).toEqual([]);
      expect(await list(oldHead.id)).toEqual([]);
    } finally {
      clock.set(start);
    }
  });

  it('opens one incident channel per incident, adds new responders, posts system messages', async () => {
    const chat = c.cloud.services.chat;
    const incidentId = '0195d6a1-0000-7000-8000-000000000001';
    const request = {
      incident_id: incidentId,
      name: 'INC: fridge',
      topic: 'Walk-in',
      member_user_ids: [c.ann.id, c.zed.id],
    };
    const [one, two] = await Promise.all([
      chat.createIncidentChannel(c.a.tenant.id, request),
      chat.createIncidentChannel(c.a.tenant.id, request),
    ]);
    expect(two.id).toBe(one.id);
    expect(one).toMatchObject({
      type: 'incident',
      incident_id: incidentId,
      created_by: null,
      member_count: 1,
    });
    const again = await chat.createIncidentChannel(c.a.tenant.id, {
      ...request,
      member_user_ids: [c.bob.id],
    });
    expect(again).toMatchObject({ id: one.id, member_count: 2 });
    // Another tenant's incident with the same id gets its own channel.
    const other = await chat.createIncidentChannel(c.b.tenant.id, {
      ...request,
      member_user_ids: [c.zed.id],
    });
    expect(other.id).not.toBe(one.id);
    const summary = await chat.postSystemMessage(c.a.tenant.id, one.id, 'Summary: fridge at 9 °C');
    expect(summary).toMatchObject({ kind: 'system', author_id: null });
    expect(await chat.lastMessageAt(c.a.tenant.id, one.id)).toBe(summary.created_at);
    expect(await chat.lastMessageAt(c.b.tenant.id, one.id)).toBeUndefined();
    expect(await chat.lastMessageAt(c.b.tenant.id, other.id)).toBeNull();
    const listed = ok(await c.bob.call('GET', `/channels/${one.id}/messages`));
    expect(listed.map((m: { content: string }) => m.content)).toEqual(['Summary: fridge at 9 °C']);
    failed(await c.cat.call('GET', `/channels/${one.id}`), 404, 'CHANNEL_NOT_FOUND');
    // Any member brings others in.
    ok(await c.bob.call('POST', `/channels/${one.id}/members`, { user_id: c.cat.id }), 201);
  });

  it('adds thousands of members in one call (an all-hands channel) within the databases’ parameter limits', async () => {
    const room = await open({ name: 'All hands' });
    const tenantId = c.a.tenant.id;
    const rows = Array.from({ length: 12_000 }, (_, n) => ({
      tenant_id: tenantId,
      channel_id: room.id,
      user_id: `0195d6a1-0000-7000-8000-${String(n).padStart(12, '0')}`,
      role: 'member' as const,
      joined_at: new Date().toISOString(),
    }));
    await addMembers(c.cloud.store.db, rows);
    await addMembers(c.cloud.store.db, rows.slice(0, 10));
    expect(await countMembers(c.cloud.store.db, tenantId, room.id)).toBe(12_001);
  });

  it('answers 404 for unknown channels and 400 naming a malformed id', async () => {
    failed(
      await c.ann.call('GET', '/channels/0195d6a1-0000-7000-8000-00000000dead'),
      404,
      'CHANNEL_NOT_FOUND',
    );
    const bad = failed(await c.ann.call('GET', '/channels/nope'), 400, 'INVALID_REQUEST');
    expect(JSON.stringify(bad.details)).toContain('channel_id');
  });
});
