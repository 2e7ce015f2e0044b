/**
 * The cloud under test for the chat bench, alone in its process (forked with an IPC channel): SQLite
 * in a fresh temporary DATA_DIR, rate limiting off, one enterprise tenant with `users` people and a
 * live session each. Channels: an all-hands private channel of everyone, and teams of TEAM_SIZE.
 * It answers the bench's requests over IPC: the tokens, and timed incident channel creations (the
 * incident flow calls these in-process, so they are measured where they run).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { startCloud } from '../../../cloud/main.ts';
import { type IncidentTiming, type ServerReady, type ServerRequest, TEAM_SIZE } from './protocol.ts';

const send = (message: unknown) => process.send?.(message);

async function setUp(dataDir: string, users: number) {
  const started = performance.now();
  // The caller's environment first, so a knob (CHAT_HEARTBEAT_MS...) can be compared.
  // The heartbeat every 10 s (not 30): at least one pass of pings over every socket falls inside
  // each 20 s delivery phase, so its cost shows in the figures.
  const config = loadCloudConfig({
    CHAT_HEARTBEAT_MS: '10000',
    ...process.env,
    DATABASE_URL: '',
    CLOUD_PORT: '0',
    CLOUD_HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    CLOUD_RATE_LIMIT: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
    CHAT_WORKER: 'false',
  });
  const cloud = await startCloud(config);
  const { tenancy, identity, chat } = cloud.services;
  const tenant = await tenancy.createTenant({ slug: 'chat-bench', name: 'Chat bench', tier: 'enterprise' });
  const people: ServerReady['users'] = [];
  for (let n = 0; n < users; n++) {
    const email = `person${n}@chat-bench.test`;
    const member = await tenancy.addUser(tenant.id, { email, roles: ['staff'] });
    const pair = await identity.sessions.open({
      userId: member.id,
      email,
      tenantId: tenant.id,
      roles: ['staff'],
      method: 'password',
      mfaVerified: false,
      client: { ipAddress: '127.0.0.1', userAgent: 'chat-bench' },
    });
    people.push({ id: member.id, token: pair.access_token });
  }
  const ids = people.map((p) => p.id);
  const owner = ids[0]!;
  const allHands = await chat.channels.create(tenant.id, owner, {
    type: 'private',
    name: 'All hands',
    member_user_ids: ids,
  });
  const teams: string[] = [];
  for (let first = 0; first + TEAM_SIZE <= ids.length; first += TEAM_SIZE) {
    const team = ids.slice(first, first + TEAM_SIZE);
    const channel = await chat.channels.create(tenant.id, team[0]!, {
      type: 'private',
      name: `Team ${first / TEAM_SIZE}`,
      member_user_ids: team,
    });
    teams.push(channel.id);
  }
  const ready: ServerReady = {
    kind: 'ready',
    port: cloud.port,
    tenantId: tenant.id,
    users: people,
    allHandsId: allHands.id,
    teams,
    setupMs: Math.round(performance.now() - started),
  };
  return { cloud, ready };
}

type Cloud = Awaited<ReturnType<typeof setUp>>['cloud'];

async function incidents(
  cloud: Cloud,
  tenantId: string,
  users: ServerReady['users'],
  count: number,
  responders: number,
) {
  const { chat } = cloud.services;
  const durations: number[] = [];
  const groups: string[][] = [];
  for (let n = 0; n < count; n++) {
    const group = Array.from(
      { length: responders },
      (_, k) => users[(n * responders + k) % users.length]!.id,
    );
    const incidentId = crypto.randomUUID();
    const started = performance.now();
    const channel = await chat.createIncidentChannel(tenantId, {
      incident_id: incidentId,
      name: `INC-${n} POS terminals offline`,
      topic: 'P1: 3 terminals at Store 12 stopped syncing',
      member_user_ids: group,
    });
    await chat.postSystemMessage(
      tenantId,
      channel.id,
      'Summary: P1 POS terminals offline at Store 12. Runbook: https://runbooks.example/pos-offline',
    );
    await chat.broadcastIncident(tenantId, {
      incident_id: incidentId,
      channel_id: channel.id,
      status: 'open',
      sent_at: performance.timeOrigin + performance.now(),
    });
    durations.push(performance.now() - started);
    groups.push(group);
  }
  const timing: IncidentTiming = { kind: 'incidents', durations, responders: groups };
  return timing;
}

/** Reports each event-loop stall of the cloud's process over STALL_MS on stderr (diagnosis of tails). */
const STALL_MS = 200;
function watchStalls() {
  let expected = performance.now() + 50;
  const timer = setInterval(() => {
    const late = performance.now() - expected;
    if (late > STALL_MS)
      process.stderr.write(
        `chat bench cloud: event loop stalled ${Math.round(late)} ms at ${new Date().toISOString()}\n`,
      );
    expected = performance.now() + 50;
  }, 50);
  timer.unref();
}

async function main() {
  watchStalls();
  const users = Number(process.argv[2] ?? '100');
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-chat-'));
  let cloud: Cloud | undefined;
  const stop = async (code: number) => {
    await cloud?.stop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    process.exit(code);
  };
  process.on('disconnect', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  try {
    const started = await setUp(dataDir, users);
    cloud = started.cloud;
    const { ready } = started;
    process.on('message', (request: ServerRequest) => {
      if (request.kind === 'stop') return void stop(0);
      void incidents(cloud!, ready.tenantId, ready.users, request.count, request.responders).then(send);
    });
    send(ready);
  } catch (error) {
    process.stderr.write(`chat bench cloud: failed to start: ${(error as Error).stack}\n`);
    await stop(1);
  }
}

await main();
