import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { WebSocket } from 'ws';
import type { ChatConfig } from '../../../cloud/chat/config.ts';
import { DEFAULT_CHAT_CONFIG } from '../../../cloud/chat/config.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';

const PASSWORD = 'correct-horse-battery';

export interface ChatUser {
  id: string;
  tenantId: string;
  token: string;
  call(method: 'GET' | 'POST' | 'DELETE', path: string, payload?: unknown): Promise<LightMyRequestResponse>;
}

/** A real cloud listening on port 0 with chat's timers short enough for tests. */
export async function chatCloud(backend: 'sqlite' | 'pg', chat: Partial<ChatConfig> = {}) {
  const cloud = await createTestCloud(backend, {
    config: {
      rateLimit: false,
      chat: { ...DEFAULT_CHAT_CONFIG, runWorker: false, authTimeoutMs: 300, presenceGraceMs: 300, ...chat },
    },
  });
  await cloud.app.listen({ port: 0, host: '127.0.0.1' });
  const address = cloud.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const a = await seedTenant(cloud.services, 'alpha');
  const b = await seedTenant(cloud.services, 'bravo');
  const user = (tenantId: string, email: string, roles = ['staff']) =>
    chatUser(cloud, tenantId, email, roles);
  return {
    cloud,
    port,
    a,
    b,
    ann: await user(a.tenant.id, 'ann@alpha.test', ['manager']),
    bob: await user(a.tenant.id, 'bob@alpha.test'),
    cat: await user(a.tenant.id, 'cat@alpha.test'),
    zed: await user(b.tenant.id, 'zed@bravo.test', ['manager']),
    user,
    wsUrl: `ws://127.0.0.1:${port}/api/v1/chat/ws`,
  };
}

export type ChatCloud = Awaited<ReturnType<typeof chatCloud>>;

export async function chatUser(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  await cloud.services.tenancy.addUser(tenantId, { email, password: PASSWORD, roles });
  const tokens = await loginTokens(cloud.app, { email, password: PASSWORD });
  const user: ChatUser = {
    id: tokens.user.id,
    tenantId,
    token: tokens.access_token,
    call: (method, path, payload) =>
      cloud.app.inject({
        method,
        url: `/api/v1/chat${path}`,
        ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
        headers: bearer(tokens.access_token),
      }),
  };
  return user;
}

export function ok(response: LightMyRequestResponse, status = 200) {
  expect(response.statusCode, response.body).toBe(status);
  return response.json().data;
}

export function failed(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body.error.code).toBe(code);
  return body.error as { code: string; message: string; details: Array<{ field: string; message: string }> };
}

export type Frame = Record<string, unknown> & { type: string };

/** A real WebSocket client that keeps every frame it receives and how it was closed. */
export class Client {
  readonly frames: Frame[] = [];
  closed: { code: number; reason: string } | undefined;
  readonly socket: WebSocket;
  readonly opened: Promise<void>;
  #waiters: Array<() => void> = [];

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
    this.socket.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      this.#wake();
    });
    this.socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.#wake();
    });
  }

  #wake() {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  send(frame: unknown) {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Resolves once `test` holds (checked on every frame and on close); fails after `ms`. */
  async until(test: () => boolean, what: string, ms = 3000) {
    const deadline = Date.now() + ms;
    while (!test()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async frame(match: (frame: Frame) => boolean, what: string, ms = 3000) {
    await this.until(() => this.frames.some(match), what, ms);
    return this.frames.find(match)!;
  }

  async closedWith(ms = 3000) {
    await this.until(() => this.closed !== undefined, 'close', ms);
    return this.closed!;
  }

  close() {
    this.socket.close();
  }
}

/** A client that has authenticated as `user` (auth_ok received). */
export async function connect(url: string, user: ChatUser) {
  const client = new Client(url);
  await client.opened;
  client.send({ type: 'auth', token: user.token });
  await client.frame((f) => f.type === 'auth_ok', 'auth_ok');
  return client;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
