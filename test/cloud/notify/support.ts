import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { expect } from 'vitest';
import { createConsoleFeed } from '../../../cloud/cockpit/feed.ts';
import { type CloudConfig, loadCloudConfig } from '../../../cloud/config.ts';
import type { NotifyConfig } from '../../../cloud/notify/config.ts';
import { alertMessage, createNotifyService, type NotificationRequest } from '../../../cloud/notify/index.ts';
import type { Person } from '../../../cloud/oncall/index.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { openTestStore } from '../../support/stores.ts';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  headers: Record<string, string>;
  body: string;
}

function parseMail(raw: string) {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: raw.slice(split + 4) };
}

/**
 * A real SMTP server on loopback port 0. While `hold()` answers true, a message's DATA is read but
 * never answered, so the sender is caught mid-send.
 */
export async function createSmtpSink(
  options: { hold?: () => boolean; reject?: () => number | undefined } = {},
) {
  const messages: ReceivedMail[] = [];
  const held: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
          ...parseMail(raw),
        };
        if (options.hold?.()) {
          held.push(mail);
          return;
        }
        const code = options.reject?.();
        if (code) {
          callback(Object.assign(new Error('mailbox unavailable'), { responseCode: code }));
          return;
        }
        messages.push(mail);
        callback(null, 'queued');
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    held,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A real HTTP provider on loopback; `answer` picks each request's status (and may hang). */
export async function createProviderSink(
  answer: (request: ReceivedRequest) => { status: number; body?: unknown; hang?: boolean } = () => ({
    status: 200,
  }),
) {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let data = '';
    req.on('data', (chunk) => {
      data += chunk;
    });
    req.on('end', () => {
      const request = { path: req.url ?? '', headers: req.headers, body: JSON.parse(data || '{}') };
      requests.push(request);
      const reply = answer(request);
      if (reply.hang) return;
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body ?? { id: `msg-${requests.length}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const person = (overrides: Partial<Person> = {}): Person => ({
  name: 'Dana Ops',
  email: 'dana@ops.test',
  phone: '+15555550100',
  push_token: 'push-token-dana',
  user_id: null,
  ...overrides,
});

let keys = 0;

export function notificationRequest(overrides: Partial<NotificationRequest> = {}): NotificationRequest {
  const message = alertMessage({
    severity: overrides.severity ?? 'P1',
    service: 'checkout',
    title: 'Payments failing at every register',
    alert_id: overrides.alert_id ?? 'alert-1',
  });
  keys += 1;
  return {
    channel: 'email',
    recipient: person(),
    severity: 'P1',
    alert_id: 'alert-1',
    dedupe_key: `key-${keys}`,
    ...message,
    ...overrides,
  };
}

type Method = 'GET' | 'PUT';

async function manager(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  await cloud.services.tenancy.addUser(tenantId, { email, password: 'correct-horse-battery', roles });
  const token = (await loginTokens(cloud.app, { email, password: 'correct-horse-battery' })).access_token;
  return (method: Method, url: string, payload?: unknown) =>
    cloud.app.inject({
      method,
      url,
      headers: bearer(token),
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    });
}

/** A test cloud with two tenants, a manager in each, and the notify settings given. */
export async function notifyCloud(backend: 'sqlite' | 'pg', notify: Partial<NotifyConfig> = {}) {
  const config: Partial<CloudConfig> = {
    rateLimit: false,
    notify: { ...loadCloudConfig({}).notify, allowPrivateUrls: true, ...notify },
  } as Partial<CloudConfig>;
  const cloud = await createTestCloud(backend, { config });
  const a = await seedTenant(cloud.services, 'alpha');
  const b = await seedTenant(cloud.services, 'bravo');
  return {
    cloud,
    notify: cloud.services.notify,
    a: a.tenant.id,
    b: b.tenant.id,
    managerA: await manager(cloud, a.tenant.id, 'manager@alpha.test', ['manager']),
    adminB: await manager(cloud, b.tenant.id, 'admin@bravo.test', ['tenant_admin']),
    staffA: await manager(cloud, a.tenant.id, 'staff@alpha.test', ['staff']),
  };
}

export type NotifyCloud = Awaited<ReturnType<typeof notifyCloud>>;

export function expectOk(response: LightMyRequestResponse, status = 200) {
  expect(response.statusCode, response.body).toBe(status);
  return response.json();
}

/** The notify service alone on a fresh store, with a manual clock: two tenants by id. */
export async function notifyRig(backend: 'sqlite' | 'pg', notify: Partial<NotifyConfig> = {}) {
  const store = await openTestStore(backend);
  const clock = createManualClock(new Date());
  const feed = createConsoleFeed();
  const service = createNotifyService({
    store,
    clock,
    newId,
    log: pino({ level: process.env.TEST_CLOUD_LOG ?? 'silent' }),
    options: { ...loadCloudConfig({}).notify, allowPrivateUrls: true, ...notify },
    consoleFeed: feed,
  });
  return {
    store,
    clock,
    feed,
    notify: service,
    a: newId(),
    b: newId(),
    async close() {
      await service.close();
      await store.destroy();
    },
  };
}

export type NotifyRig = Awaited<ReturnType<typeof notifyRig>>;
