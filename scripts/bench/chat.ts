/**
 * Chat benchmark: `npm run bench -- chat [--quick]`. One cloud process (SQLite) holds 10,000
 * authenticated WebSocket connections (1,000 with --quick) opened by separate client processes,
 * and the bench measures:
 *   - message delivery latency, POST /api/v1/chat/channels/{id}/messages → the `message` frame
 *     on each member's socket, for team channels of 10, with only 100 connections open (the
 *     baseline, same run) and then with all of them (target: p50 < 50 ms, p99 < 100 ms);
 *   - fan-out: a message to an all-hands channel of every connected person;
 *   - incident channel creation: createIncidentChannel + the summary post + the incident frame,
 *     in the cloud's process (target: < 500 ms), and until the frame reaches the responders.
 * The cloud runs its heartbeat every 10 s so its pings fall inside the measured phases, and it
 * reports on stderr every event-loop stall over 200 ms (the fan-out to everyone causes some).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type {
  ClientReply,
  ClientRequest,
  IncidentTiming,
  ServerReady,
  ServerRequest,
} from './chat/protocol.ts';
import { TEAM_SIZE } from './chat/protocol.ts';
import { codeVersion, type Goal, goalsMetLine, judgeGoals, machineSampler, verdictOf } from './lib/report.ts';

const TSX_LOADER = import.meta.resolve('tsx');
const SERVER = fileURLToPath(new URL('./chat/server.ts', import.meta.url));
const CLIENTS = fileURLToPath(new URL('./chat/clients.ts', import.meta.url));
const BASELINE_CONNECTIONS = 100;
const WARMUP_MESSAGES = 200;
const now = () => performance.timeOrigin + performance.now();
const round = (value: number) => Math.round(value * 10) / 10;

interface Sizes {
  connections: number;
  clientProcesses: number;
  messages: number;
  messagesPerSecond: number;
  fanoutMessages: number;
  incidents: number;
  responders: number;
}

const FULL: Sizes = {
  connections: 10_000,
  clientProcesses: 4,
  messages: 400,
  messagesPerSecond: 20,
  fanoutMessages: 5,
  incidents: 20,
  responders: 5,
};
const QUICK: Sizes = {
  ...FULL,
  connections: 1000,
  clientProcesses: 2,
  messages: 300,
  fanoutMessages: 3,
  incidents: 10,
};

export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { count: sorted.length, p50: round(at(0.5)), p99: round(at(0.99)), max: round(sorted.at(-1) ?? 0) };
}

function child(file: string, args: string[] = []) {
  return fork(file, args, {
    execArgv: ['--import', TSX_LOADER],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

function next<T extends { kind: string }>(process: ChildProcess, kind: T['kind'], timeoutMs = 600_000) {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${kind} within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: T) => {
      if (message.kind !== kind) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      process.off('exit', onExit);
      resolve(message);
    };
    const onExit = (code: number | null) => reject(new Error(`child exited (${code}) waiting for ${kind}`));
    process.on('message', onMessage);
    process.once('exit', onExit);
  });
}

const ask = <T extends { kind: string }>(
  process: ChildProcess,
  request: ClientRequest | ServerRequest,
  kind: T['kind'],
) => {
  const answer = next<T>(process, kind);
  process.send(request);
  return answer;
};

/** Connects users to the clients (user i on client i mod n); the totals. */
async function connect(clients: ChildProcess[], url: string, users: ServerReady['users']) {
  const shares = clients.map((_, c) => users.filter((__, i) => i % clients.length === c));
  const started = performance.now();
  const replies = await Promise.all(
    clients.map((client, c) =>
      ask<Extract<ClientReply, { kind: 'connected' }>>(
        client,
        { kind: 'connect', url, users: shares[c]! },
        'connected',
      ),
    ),
  );
  return {
    authenticated: replies.reduce((sum, r) => sum + r.ok, 0),
    failed: replies.reduce((sum, r) => sum + r.failed, 0),
    errors: [...new Set(replies.flatMap((r) => r.errors))],
    seconds: round((performance.now() - started) / 1000),
  };
}

async function collect(clients: ChildProcess[]) {
  const replies = await Promise.all(
    clients.map((client) =>
      ask<Extract<ClientReply, { kind: 'samples' }>>(client, { kind: 'collect' }, 'samples'),
    ),
  );
  return {
    message: replies.flatMap((r) => r.message),
    incident: replies.flatMap((r) => r.incident),
    dropped: replies.reduce((sum, r) => sum + r.dropped, 0),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `count` messages at `perSecond`, each to a channel `pick` chooses, as its member `from`. */
async function sendPaced(
  base: string,
  count: number,
  perSecond: number,
  pick: (n: number) => { channel: string; token: string },
) {
  const posts: number[] = [];
  let failures = 0;
  const inFlight: Promise<void>[] = [];
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    const due = started + (n * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const { channel, token } = pick(n);
    const sentAt = now();
    inFlight.push(
      fetch(`${base}/api/v1/chat/channels/${channel}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `t:${sentAt}` }),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          if (response.status === 201) posts.push(now() - sentAt);
          else failures += 1;
        },
        () => {
          failures += 1;
        },
      ),
    );
  }
  await Promise.all(inFlight);
  return { post: percentiles(posts), failures };
}

async function deliveryPhase(
  base: string,
  clients: ChildProcess[],
  sizes: Sizes,
  teams: number,
  ready: ServerReady,
) {
  await collect(clients);
  const sent = await sendPaced(base, sizes.messages, sizes.messagesPerSecond, (n) => {
    const team = (n * 7919) % teams;
    return { channel: ready.teams[team]!, token: ready.users[team * TEAM_SIZE + (n % TEAM_SIZE)]!.token };
  });
  await sleep(1000);
  const samples = await collect(clients);
  return {
    messages: sizes.messages,
    messages_per_second: sizes.messagesPerSecond,
    receivers_per_message: TEAM_SIZE,
    frames_expected: sizes.messages * TEAM_SIZE - sent.failures * TEAM_SIZE,
    frames_received: samples.message.length,
    post_failures: sent.failures,
    http_post_ms: sent.post,
    delivery_ms: percentiles(samples.message),
    connections_dropped: samples.dropped,
  };
}

async function fanoutPhase(
  base: string,
  clients: ChildProcess[],
  sizes: Sizes,
  ready: ServerReady,
  connected: number,
) {
  await collect(clients);
  const sent = await sendPaced(base, sizes.fanoutMessages, 1, () => ({
    channel: ready.allHandsId,
    token: ready.users[0]!.token,
  }));
  await sleep(3000);
  const samples = await collect(clients);
  return {
    messages: sizes.fanoutMessages,
    receivers_per_message: connected,
    frames_expected: (sizes.fanoutMessages - sent.failures) * connected,
    frames_received: samples.message.length,
    delivery_ms: percentiles(samples.message),
  };
}

async function incidentPhase(server: ChildProcess, clients: ChildProcess[], sizes: Sizes) {
  await collect(clients);
  const timing = await ask<IncidentTiming>(
    server,
    { kind: 'incidents', count: sizes.incidents, responders: sizes.responders },
    'incidents',
  );
  await sleep(1000);
  const samples = await collect(clients);
  return {
    incidents: sizes.incidents,
    responders_each: sizes.responders,
    create_post_broadcast_ms: percentiles(timing.durations),
    frames_expected: sizes.incidents * sizes.responders,
    frames_received: samples.incident.length,
    to_responders_socket_ms: percentiles(samples.incident),
  };
}

export async function runChatBench(options: { quick?: boolean | undefined }) {
  const sizes = options.quick ? QUICK : FULL;
  const machine = machineSampler();
  const server = child(SERVER, [String(sizes.connections)]);
  const clients: ChildProcess[] = [];
  const stopAll = () => {
    for (const c of [server, ...clients]) if (c.connected) c.kill('SIGTERM');
  };
  process.once('exit', stopAll);
  try {
    const ready = await next<ServerReady>(server, 'ready');
    for (let n = 0; n < sizes.clientProcesses; n++) clients.push(child(CLIENTS));
    const base = `http://127.0.0.1:${ready.port}`;
    const url = `ws://127.0.0.1:${ready.port}/api/v1/chat/ws`;

    const baselineConnect = await connect(clients, url, ready.users.slice(0, BASELINE_CONNECTIONS));
    // Warm-up (JIT, statement caches), thrown away.
    await deliveryPhase(
      base,
      clients,
      { ...sizes, messages: WARMUP_MESSAGES },
      BASELINE_CONNECTIONS / TEAM_SIZE,
      ready,
    );
    const baseline = await deliveryPhase(base, clients, sizes, BASELINE_CONNECTIONS / TEAM_SIZE, ready);
    const fullConnect = await connect(clients, url, ready.users.slice(BASELINE_CONNECTIONS));
    const connected = baselineConnect.authenticated + fullConnect.authenticated;
    const full = await deliveryPhase(base, clients, sizes, ready.teams.length, ready);
    const fanout = await fanoutPhase(base, clients, sizes, ready, connected);
    const incidents = await incidentPhase(server, clients, sizes);
    const valid =
      connected === sizes.connections &&
      baseline.frames_received === baseline.frames_expected &&
      full.frames_received === full.frames_expected &&
      full.connections_dropped === 0 &&
      incidents.frames_received === incidents.frames_expected;
    const report = {
      benchmark: 'chat',
      quick: Boolean(options.quick),
      machine: machine(),
      code: codeVersion(),
      server: { processes: 1, backend: 'sqlite', setup_ms: ready.setupMs },
      client_processes: sizes.clientProcesses,
      connections: {
        target: sizes.connections,
        authenticated: connected,
        failed: baselineConnect.failed + fullConnect.failed,
        errors: [...baselineConnect.errors, ...fullConnect.errors],
        ramp_seconds: fullConnect.seconds,
      },
      baseline: { connections: baselineConnect.authenticated, ...baseline },
      full: { connections: connected, ...full },
      fanout,
      incident_channel: incidents,
      valid,
      goals: [] as Goal[],
    };
    report.goals = judgeGoals({ chat: report }, [
      {
        measure: 'connections',
        target: `= ${sizes.connections}`,
        value: (r) => r.connections.authenticated,
        met: (v) => v === sizes.connections,
      },
      {
        measure: 'delivery p50 ms',
        target: '< 50',
        value: (r) => r.full.delivery_ms.p50,
        met: (v) => v < 50,
      },
      {
        measure: 'delivery p99 ms',
        target: '< 100',
        value: (r) => r.full.delivery_ms.p99,
        met: (v) => v < 100,
      },
      {
        measure: 'incident channel max ms',
        target: '< 500',
        value: (r) => r.incident_channel.create_post_broadcast_ms.max,
        met: (v) => v < 500,
      },
    ]);
    return report;
  } finally {
    for (const client of clients)
      if (client.connected) client.send({ kind: 'close' } satisfies ClientRequest);
    if (server.connected) server.send({ kind: 'stop' } satisfies ServerRequest);
    await sleep(500);
    process.off('exit', stopAll);
  }
}

export type ChatReport = Awaited<ReturnType<typeof runChatBench>>;

const line = (label: string, p: Percentiles) =>
  `${label}: p50 ${p.p50} ms, p99 ${p.p99} ms, max ${p.max} ms (n=${p.count})`;

export function summarizeChat(report: ChatReport): string[] {
  const { goals } = report;
  return [
    `chat${report.quick ? ' (quick)' : ''}: ${report.connections.authenticated} of ${report.connections.target} WebSocket connections authenticated in one cloud process (${report.connections.failed} failed; ramp ${report.connections.ramp_seconds} s) ${verdictOf(goals, 'chat', 'connections')}`,
    line(`  delivery, baseline ${report.baseline.connections} connections`, report.baseline.delivery_ms),
    `${line(`  delivery, ${report.full.connections} connections`, report.full.delivery_ms)}; ${verdictOf(goals, 'chat', 'delivery p50 ms')}, ${verdictOf(goals, 'chat', 'delivery p99 ms')}`,
    line('  HTTP send (POST → 201)', report.full.http_post_ms),
    line(`  fan-out to ${report.fanout.receivers_per_message} members`, report.fanout.delivery_ms),
    `${line('  incident channel (create + summary + frame)', report.incident_channel.create_post_broadcast_ms)}; ${verdictOf(goals, 'chat', 'incident channel max ms')}`,
    line('  incident frame on the responders’ sockets', report.incident_channel.to_responders_socket_ms),
    `  frames received/expected: baseline ${report.baseline.frames_received}/${report.baseline.frames_expected}, full ${report.full.frames_received}/${report.full.frames_expected}, fan-out ${report.fanout.frames_received}/${report.fanout.frames_expected}, incident ${report.incident_channel.frames_received}/${report.incident_channel.frames_expected}`,
    `  ${goalsMetLine(goals)}${report.valid ? '' : ' (run INVALID: lost frames or connections)'}`,
  ];
}
