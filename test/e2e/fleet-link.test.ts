import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt from 'mqtt';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openApplianceDb } from '../../appliance/db/index.ts';
import { createCommandJournal } from '../../appliance/fleet/journal.ts';
import { type CommandHandler, createApplianceFleetLink } from '../../appliance/fleet/link.ts';
import { startFleetBroker } from '../../cloud/fleet/broker.ts';
import { createCloudFleetLink } from '../../cloud/fleet/link.ts';
import { systemClock } from '../../shared/clock.ts';
import type { FleetAck, FleetCommand, FleetStatus } from '../../shared/devices/fleet-protocol.ts';

const log = pino({ level: 'silent' });
const FIXTURE = fileURLToPath(new URL('./fixtures/fleet-appliance.ts', import.meta.url));
const TENANT = 'tenant-1';
// A fresh appliance (and so a fresh persistent session at the broker) for every test.
let APPLIANCE = '';
beforeEach(() => {
  APPLIANCE = `appliance-${randomBytes(4).toString('hex')}`;
});
const CREDENTIAL = 'sak_test.secret';

interface Peer {
  name: string;
  start(): Promise<{ url: string; username?: string; password?: string; close(): Promise<void> }>;
}

// Our embedded broker, and the machine's real Mosquitto (a broker we did not write).
const peers: Peer[] = [
  {
    name: 'embedded Aedes',
    async start() {
      const broker = await startFleetBroker({
        port: 0,
        host: '127.0.0.1',
        prefix: 'edge',
        log,
        authenticateAppliance: async (credential) =>
          credential === CREDENTIAL ? { tenantId: TENANT, applianceId: APPLIANCE } : undefined,
      });
      return { url: broker.url, ...broker.cloudCredentials, close: broker.close };
    },
  },
  { name: 'Mosquitto', start: async () => ({ url: 'mqtt://127.0.0.1:1883', close: async () => {} }) },
];

describe.each(peers)('fleet link over $name', (peer) => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function setUp(handlers: Record<string, CommandHandler>) {
    const broker = await peer.start();
    closers.push(broker.close);
    // A prefix of its own, so runs sharing the machine's Mosquitto never hear each other.
    const prefix = `edge${randomBytes(4).toString('hex')}`;
    const acks: FleetAck[] = [];
    const statuses: FleetStatus[] = [];
    const cloud = createCloudFleetLink({
      url: broker.url,
      username: broker.username,
      password: broker.password,
      prefix: peer.name === 'Mosquitto' ? prefix : 'edge',
      log,
      onAck: async (_tenant, _appliance, ack) => void acks.push(ack),
      onStatus: async (_tenant, _appliance, status) => void statuses.push(status),
    });
    await cloud.start();
    closers.push(cloud.close);
    const dir = mkdtempSync(join(tmpdir(), 'fleet-'));
    const db = openApplianceDb(dir);
    closers.push(async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const appliance = () => {
      const link = createApplianceFleetLink({
        url: broker.url,
        tenantId: TENANT,
        applianceId: APPLIANCE,
        prefix: peer.name === 'Mosquitto' ? prefix : 'edge',
        version: '1.0.0',
        journal: createCommandJournal(db),
        handlers,
        clock: systemClock,
        log,
        ...(broker.username ? { username: APPLIANCE, password: CREDENTIAL } : {}),
      });
      closers.push(() => link.close());
      return link;
    };
    return { cloud, appliance, acks, statuses, broker, prefix: peer.name === 'Mosquitto' ? prefix : 'edge' };
  }

  const command = (kind: FleetCommand['kind'], extra: Partial<FleetCommand> = {}): FleetCommand => ({
    id: randomBytes(8).toString('hex'),
    kind,
    payload: {},
    issued_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 60_000).toISOString(),
    ...extra,
  });
  const statesOf = (acks: FleetAck[], id: string) =>
    acks.filter((a) => a.command_id === id).map((a) => a.state);

  it('carries a command and its acknowledgements, and acts on a command id once', async () => {
    let runs = 0;
    const { cloud, appliance, acks } = await setUp({ sync_now: async () => ({ runs: ++runs }) });
    await appliance().start();
    const sync = command('sync_now');
    await cloud.send(TENANT, APPLIANCE, sync);
    await expect.poll(() => statesOf(acks, sync.id), { timeout: 5000 }).toEqual(['received', 'succeeded']);
    await cloud.send(TENANT, APPLIANCE, sync);
    await expect
      .poll(() => statesOf(acks, sync.id), { timeout: 5000 })
      .toEqual(['received', 'succeeded', 'succeeded']);
    expect(runs).toBe(1);
    expect(acks.find((a) => a.state === 'succeeded')?.result).toEqual({ runs: 1 });
  });

  it('delivers a command sent while the appliance was away once it is back', async () => {
    let runs = 0;
    const { cloud, appliance, acks } = await setUp({ restart: async () => ({ runs: ++runs }) });
    const first = appliance();
    await first.start();
    await first.close();
    const restart = command('restart');
    await cloud.send(TENANT, APPLIANCE, restart);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(runs).toBe(0);
    await appliance().start();
    await expect.poll(() => statesOf(acks, restart.id), { timeout: 5000 }).toEqual(['received', 'succeeded']);
    expect(runs).toBe(1);
  });

  it('refuses expired and unknown commands, and cancels an update in progress', async () => {
    const { cloud, appliance, acks } = await setUp({
      update: (_command, context) =>
        new Promise((_resolve, reject) =>
          context.signal.addEventListener('abort', () => reject(new Error('cancelled'))),
        ),
    });
    await appliance().start();
    const late = command('sync_now', { expires_at: new Date(Date.now() - 1000).toISOString() });
    const unknown = command('settings');
    const update = command('update');
    for (const sent of [late, unknown, update]) await cloud.send(TENANT, APPLIANCE, sent);
    await expect.poll(() => statesOf(acks, update.id), { timeout: 5000 }).toEqual(['received']);
    const cancel = command('cancel_update', { payload: { command_id: update.id } });
    await cloud.send(TENANT, APPLIANCE, cancel);
    await expect.poll(() => statesOf(acks, update.id), { timeout: 5000 }).toEqual(['received', 'failed']);
    await expect.poll(() => statesOf(acks, cancel.id), { timeout: 5000 }).toEqual(['succeeded']);
    await expect.poll(() => statesOf(acks, late.id), { timeout: 5000 }).toEqual(['expired']);
    await expect.poll(() => statesOf(acks, unknown.id), { timeout: 5000 }).toEqual(['rejected']);
  });

  it('shows the appliance online, and offline when it leaves', async () => {
    const { appliance, statuses } = await setUp({});
    const link = appliance();
    await link.start();
    await expect.poll(() => statuses.at(-1)?.online).toBe(true);
    await link.close();
    await expect.poll(() => statuses.at(-1)?.online).toBe(false);
  });

  it('shows the appliance offline when its process dies without a word (its will)', async () => {
    const { statuses, broker, prefix } = await setUp({});
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      env: {
        ...process.env,
        FLEET_URL: broker.url,
        FLEET_TENANT: TENANT,
        FLEET_APPLIANCE: APPLIANCE,
        FLEET_PREFIX: prefix,
        FLEET_USERNAME: broker.username ? APPLIANCE : '',
        FLEET_PASSWORD: broker.username ? CREDENTIAL : '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    closers.push(async () => void child.kill('SIGKILL'));
    await new Promise<void>((resolve) =>
      child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve()),
    );
    await expect.poll(() => statuses.at(-1)?.online).toBe(true);
    child.kill('SIGKILL');
    await expect.poll(() => statuses.at(-1)?.online, { timeout: 5000 }).toBe(false);
  });
});

describe('the embedded fleet broker', () => {
  it('lets an appliance read only its own commands and write only its own answers', async () => {
    const broker = await startFleetBroker({
      port: 0,
      host: '127.0.0.1',
      prefix: 'edge',
      log,
      authenticateAppliance: async (credential) =>
        credential === CREDENTIAL ? { tenantId: TENANT, applianceId: APPLIANCE } : undefined,
    });
    const connect = (clientId: string, password: string) =>
      mqtt.connectAsync(broker.url, { clientId, username: clientId, password, reconnectPeriod: 0 });
    try {
      await expect(connect(APPLIANCE, 'sak_wrong.secret')).rejects.toThrow();
      await expect(connect('someone-else', CREDENTIAL)).rejects.toThrow();
      const client = await connect(APPLIANCE, CREDENTIAL);
      for (const filter of ['#', `edge/fleet/${TENANT}/other/cmd`, `edge/fleet/${TENANT}/+/cmd`])
        await expect(client.subscribeAsync(filter, { qos: 1 }), filter).rejects.toThrow(/Subscribe error/);
      const granted = await client.subscribeAsync(`edge/fleet/${TENANT}/${APPLIANCE}/cmd`, { qos: 1 });
      expect(granted.map((g) => g.qos)).toEqual([1]);
      // Commanding itself is the cloud's alone: the publish goes nowhere.
      const heard: string[] = [];
      client.on('message', (topic) => heard.push(topic));
      await client.publishAsync(`edge/fleet/${TENANT}/${APPLIANCE}/cmd`, 'x', { qos: 0 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual([]);
      await client.endAsync();
    } finally {
      await broker.close();
    }
  });
});
