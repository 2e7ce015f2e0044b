/**
 * One of the chat bench's client processes: holds its share of the WebSocket connections, each
 * authenticated with its person's token, and records how long after it was sent each `message`
 * and `incident` frame arrived. Kept apart from the cloud's process so that the cloud's event loop
 * does only the cloud's work.
 */
import { WebSocket } from 'ws';
import type { ClientReply, ClientRequest } from './protocol.ts';

const CONNECT_CONCURRENCY = 100;
const AUTH_TIMEOUT_MS = 30_000;
const now = () => performance.timeOrigin + performance.now();

const sockets: WebSocket[] = [];
let messageLatencies: number[] = [];
let incidentLatencies: number[] = [];
let dropped = 0;

const reply = (message: ClientReply) => process.send?.(message);

function onFrame(data: Buffer) {
  const received = now();
  const frame = JSON.parse(data.toString()) as {
    type: string;
    sent_at?: number;
    message?: { content: string };
  };
  if (frame.type === 'message' && frame.message?.content.startsWith('t:')) {
    messageLatencies.push(received - Number(frame.message.content.slice(2)));
  } else if (frame.type === 'incident' && typeof frame.sent_at === 'number') {
    incidentLatencies.push(received - frame.sent_at);
  }
}

/** Opens, authenticates and keeps one connection; resolves once auth_ok arrived. */
function open(url: string, token: string) {
  return new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error('no auth_ok in time'));
    }, AUTH_TIMEOUT_MS);
    socket.once('open', () => socket.send(JSON.stringify({ type: 'auth', token })));
    socket.once('message', (data: Buffer) => {
      clearTimeout(timer);
      const frame = JSON.parse(data.toString()) as { type: string };
      if (frame.type !== 'auth_ok') return reject(new Error(`first frame ${frame.type}`));
      sockets.push(socket);
      socket.on('message', onFrame);
      socket.on('close', () => {
        dropped += 1;
      });
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`closed ${code} before auth_ok`));
    });
  });
}

async function connectAll(url: string, users: Array<{ token: string }>) {
  const started = performance.now();
  let next = 0;
  let ok = 0;
  const errors: string[] = [];
  const worker = async () => {
    while (next < users.length) {
      const user = users[next++]!;
      try {
        await open(url, user.token);
        ok += 1;
      } catch (error) {
        errors.push((error as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECT_CONCURRENCY }, worker));
  const open_ = sockets.filter((s) => s.readyState === WebSocket.OPEN).length;
  reply({
    kind: 'connected',
    ok,
    failed: errors.length,
    open: open_,
    ms: Math.round(performance.now() - started),
    errors: [...new Set(errors)].slice(0, 5),
  });
}

process.on('message', (request: ClientRequest) => {
  if (request.kind === 'connect') return void connectAll(request.url, request.users);
  if (request.kind === 'collect') {
    reply({ kind: 'samples', message: messageLatencies, incident: incidentLatencies, dropped });
    messageLatencies = [];
    incidentLatencies = [];
    return;
  }
  for (const socket of sockets) socket.terminate();
  process.exit(0);
});
process.on('disconnect', () => process.exit(0));
