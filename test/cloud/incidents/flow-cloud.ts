import { WebSocket } from 'ws';
import type { CloudConfig } from '../../../cloud/config.ts';
import type { IncidentFlowConfig } from '../../../cloud/incidents/index.ts';
import { createTestCloud, seedTenant } from '../../support/cloud.ts';
import { type ApiMember, apiCaller, apiMember, expectOk } from './api-cloud.ts';

export type Frame = Record<string, unknown> & { type: string };

/** A real WebSocket client of the chat socket that keeps every frame it receives. */
export class ChatSocket {
  readonly frames: Frame[] = [];
  readonly socket: WebSocket;
  #waiters: Array<() => void> = [];

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  static async signedIn(url: string, token: string) {
    const client = new ChatSocket(url);
    await new Promise<void>((resolve, reject) => {
      client.socket.once('open', () => resolve());
      client.socket.once('error', reject);
    });
    client.socket.send(JSON.stringify({ type: 'auth', token }));
    await client.next((frame) => frame.type === 'auth_ok', 'auth_ok');
    return client;
  }

  /** The first frame (kept or still to come) that passes `test`; fails after `ms`. */
  async next(test: (frame: Frame) => boolean, what: string, ms = 5000): Promise<Frame> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.frames.find(test);
      if (found) return found;
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

  close() {
    this.socket.close();
  }
}

/**
 * A real cloud on port 0: tenant A with a manager, two more users (ann, bob) and an escalation
 * policy whose first level names ann by email, bob by user id, a vendor who is no user and B's
 * admin (a user of the other tenant); tenant B with its admin.
 */
export async function flowCloud(backend: 'sqlite' | 'pg', flow: Partial<IncidentFlowConfig> = {}) {
  const config = {
    rateLimit: false,
    incidentFlow: { enabled: true, autoResolveHours: 24, sweepSeconds: 3600, ...flow },
  };
  const cloud = await createTestCloud(backend, { config: config as Partial<CloudConfig> });
  await cloud.app.listen({ port: 0, host: '127.0.0.1' });
  const address = cloud.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const a = await seedTenant(cloud.services, 'alpha');
  const b = await seedTenant(cloud.services, 'bravo');
  const managerA = await apiMember(cloud, a.tenant.id, 'manager@alpha.test', ['manager']);
  const adminA = await apiMember(cloud, a.tenant.id, 'admin@alpha.test', ['tenant_admin']);
  const ann = await apiMember(cloud, a.tenant.id, 'ann@alpha.test', ['manager']);
  const bob = await apiMember(cloud, a.tenant.id, 'bob@alpha.test', ['staff']);
  const adminB = await apiMember(cloud, b.tenant.id, 'admin@bravo.test', ['tenant_admin']);
  const people = {
    ann: { name: 'Ann Alpha', email: 'ANN@alpha.test' },
    bob: { name: 'Bob Alpha', email: 'robert@elsewhere.test', user_id: bob.id },
    val: { name: 'Val Vendor', email: 'val@vendor.test', phone: '+15550100' },
    zed: { name: 'Zed Bravo', email: 'admin@bravo.test' },
  };
  expectOk(
    await managerA.call('POST', '/api/v1/alerting/policies', {
      name: 'Default',
      is_default: true,
      levels: [
        {
          targets: Object.values(people).map((person) => ({ type: 'person', person })),
          channels: ['email'],
          timeout_minutes: null,
        },
      ],
    }),
    201,
  );
  return {
    cloud,
    a,
    b,
    managerA,
    adminA,
    ann,
    bob,
    adminB,
    people,
    anonymous: apiCaller(cloud),
    wsUrl: `ws://127.0.0.1:${port}/api/v1/chat/ws`,
    /** Ingests through HTTP as A's manager; the alert record. */
    async ingest(body: Record<string, unknown>, by: ApiMember = managerA) {
      const response = await by.call('POST', '/api/v1/alerts/ingest', {
        source: 'custom',
        severity: 'P1',
        title: 'Checkout API returns 502',
        description: 'Half the card payments fail at the gateway',
        service: 'checkout',
        environment: 'prod',
        ...body,
      });
      if (response.statusCode !== 201 && response.statusCode !== 200)
        throw new Error(`ingest failed: ${response.statusCode} ${response.body}`);
      return response.json().data as { id: string; [field: string]: unknown };
    },
  };
}

export type FlowCloud = Awaited<ReturnType<typeof flowCloud>>;
