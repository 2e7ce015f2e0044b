import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createActionBoard } from '../../../../appliance/actions/index.ts';
import { createSyncDrainWatch, KIOSK_CSP, SESSION_ENDED } from '../../../../appliance/kiosk/server/index.ts';
import { createTopicWatcher } from '../../../../appliance/kiosk/server/topics.ts';
import type { SyncStatus } from '../../../../appliance/sync/index.ts';
import { createManualClock } from '../../../../shared/clock.ts';
import { createTestAppliance, type TestAppliance } from '../../../support/appliance.ts';
import { waitFor } from '../../../support/processes.ts';

interface FeedMessage {
  kind: 'event' | 'state';
  topic?: string;
  type?: string;
  seq?: number;
  data: unknown;
}

function builtUi() {
  const dir = mkdtempSync(join(tmpdir(), 'kiosk-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Kiosk</title><div id="app"></div>');
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("kiosk")');
  return dir;
}

let store: TestAppliance | undefined;
const cleanups: Array<() => void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await store?.close();
  store = undefined;
});

async function openFeed(appliance: TestAppliance, token: string, query = '') {
  const address = await appliance.app.listen({ port: 0, host: '127.0.0.1' });
  const socket = new WebSocket(
    `${address.replace('http', 'ws')}/v1/kiosk/feed?access_token=${token}${query}`,
  );
  const messages: FeedMessage[] = [];
  socket.on('message', (raw) => messages.push(JSON.parse(String(raw)) as FeedMessage));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  cleanups.push(() => socket.close());
  return { socket, messages, closed };
}

describe('the kiosk UI at /kiosk/', () => {
  it('serves the built page with a policy that keeps it on the appliance, and leads / there', async () => {
    const dist = builtUi();
    cleanups.push(() => rmSync(dist, { recursive: true, force: true }));
    store = await createTestAppliance({ env: { APPLIANCE_KIOSK_DIR: dist } });

    const page = await store.app.inject({ method: 'GET', url: '/kiosk/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<div id="app">');
    expect(page.headers['content-security-policy']).toBe(KIOSK_CSP);
    expect(KIOSK_CSP).toContain("connect-src 'self'");
    expect(page.headers['cache-control']).toBe('no-cache');

    const asset = await store.app.inject({ method: 'GET', url: '/kiosk/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');

    const root = await store.app.inject({ method: 'GET', url: '/' });
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/kiosk/');
    expect((await store.app.inject({ method: 'GET', url: '/kiosk/missing.js' })).statusCode).toBe(404);
  });

  it('says how to build the UI when it is not built', async () => {
    store = await createTestAppliance({ env: { APPLIANCE_KIOSK_DIR: join(tmpdir(), 'no-such-kiosk') } });
    const response = await store.app.inject({ method: 'GET', url: '/kiosk/' });
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe('KIOSK_NOT_BUILT');
    expect(response.json().error.message).toContain('npm run kiosk:build');
  });
});

describe('the kiosk feed', () => {
  it('refuses a connection without a valid token', async () => {
    store = await createTestAppliance();
    const response = await store.app.inject({ method: 'GET', url: '/v1/kiosk/feed?access_token=nope' });
    expect(response.statusCode).toBe(401);
  });

  it('sends every state topic on connect, store events as they commit, and state only on change', async () => {
    store = await createTestAppliance();
    const feed = await openFeed(store, store.cashier);
    await waitFor(
      'all topics',
      () => new Set(feed.messages.map((m) => m.topic)).size === 5 || undefined,
      5000,
    );
    const topics = feed.messages.filter((m) => m.kind === 'state').map((m) => m.topic);
    expect(topics.sort()).toEqual(['actions', 'cameras', 'devices', 'drive_thru', 'sync']);
    const sync = feed.messages.find((m) => m.topic === 'sync')!.data as SyncStatus;
    expect(sync).toMatchObject({ configured: false, online: false });

    const mains = store.services.menu.createCategory({ name: 'Mains' });
    const burger = store.services.menu.createItem({
      category_id: mains.id,
      name: 'Burger',
      price_minor: 349,
    });
    const created = await store.call(store.cashier, 'POST', '/orders', {
      order_type: 'dine_in',
      items: [{ menu_item_id: burger.id, quantity: 1 }],
    });
    expect(created.statusCode).toBe(201);
    const event = await waitFor(
      'order event',
      () => feed.messages.find((m) => m.type === 'order.created'),
      5000,
    );
    expect(event.kind).toBe('event');
    expect(event.seq).toBeGreaterThan(0);

    // Two more seconds of a quiet store: the sync topic changed (its queue grew), nothing else did.
    const before = feed.messages.length;
    await new Promise((resolve) => setTimeout(resolve, 2200));
    const later = feed.messages.slice(before);
    expect(later.every((m) => m.kind === 'state' && m.topic === 'sync')).toBe(true);
    expect(later.length).toBeLessThanOrEqual(1);
  });

  it('closes with 4401 when the session ends, so the screen signs in again', async () => {
    store = await createTestAppliance();
    const feed = await openFeed(store, store.cashier);
    const signOut = await store.app.inject({
      method: 'DELETE',
      url: '/v1/auth/session',
      headers: { authorization: `Bearer ${store.cashier}` },
    });
    expect(signOut.statusCode).toBe(200);
    expect(await feed.closed).toBe(SESSION_ENDED);
  });

  it('shows a long command from the board, with its progress', async () => {
    store = await createTestAppliance();
    const feed = await openFeed(store, store.manager);
    store.services.actions.start('cmd-1', 'models_sync', 'Downloading camera models');
    store.services.actions.progress('cmd-1', 0.42);
    const actions = () =>
      feed.messages.filter((m) => m.topic === 'actions').at(-1)?.data as Array<{ progress_pct: number }>;
    await waitFor('action on the feed', () => (actions()?.[0]?.progress_pct === 42 ? true : undefined), 5000);
    expect(actions()[0]).toMatchObject({ id: 'cmd-1', kind: 'models_sync', state: 'running' });
  });
});

describe('the action board', () => {
  it('keeps a finished action a minute, running ones first', () => {
    const clock = createManualClock('2026-06-10T19:00:00.000Z');
    const board = createActionBoard(clock);
    board.start('a', 'update', 'Installing a software update');
    board.start('b', 'models_sync', 'Downloading camera models');
    board.finish('a', 'failed', 'disk full');
    expect(board.list().map((a) => [a.id, a.state])).toEqual([
      ['b', 'running'],
      ['a', 'failed'],
    ]);
    const version = board.version;
    clock.advance(61_000);
    expect(board.list().map((a) => a.id)).toEqual(['b']);
    expect(board.version).toBeGreaterThan(version);
  });

  it('turns a big outbox drain into progress, and ends it when the queue is empty or the cloud goes', () => {
    const board = createActionBoard(createManualClock('2026-06-10T19:00:00.000Z'));
    let n = 0;
    const watch = createSyncDrainWatch(board, () => `drain-${++n}`);
    const status = (queue_depth: number, online = true) => ({ queue_depth, online }) as SyncStatus;
    watch(status(50));
    expect(board.list()).toEqual([]);
    watch(status(400));
    watch(status(100));
    expect(board.list()[0]).toMatchObject({ kind: 'sync', state: 'running', progress_pct: 75 });
    watch(status(0));
    expect(board.list()[0]).toMatchObject({ state: 'succeeded', progress_pct: 100 });
    watch(status(300));
    watch(status(250, false));
    expect(board.list().find((a) => a.id === 'drain-2')).toMatchObject({ state: 'failed' });
  });
});

describe('the topic watcher', () => {
  it('keeps the other topics going when one source throws', async () => {
    const seen: string[] = [];
    const watcher = createTopicWatcher(
      {
        sync: () => ({ ok: true }),
        devices: () => {
          throw new Error('broken');
        },
        drive_thru: () => null,
        cameras: () => [],
        actions: () => [],
      },
      50,
    );
    const stop = watcher.subscribe((message) => seen.push(message.topic));
    expect(seen.sort()).toEqual(['actions', 'cameras', 'devices', 'drive_thru', 'sync']);
    stop();
    watcher.close();
  });
});
