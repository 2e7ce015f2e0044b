import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { type EdgeConfig, loadEdgeConfig } from '../../../cloud/edge/config.ts';
import { type EdgeDeps, type RunningEdge, startEdge } from '../../../cloud/edge/index.ts';
import { createManualClock, type ManualClock } from '../../../shared/clock.ts';

export const SECURITY = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-xss-protection': '1; mode=block',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

export const portOf = (server: Server) => (server.address() as AddressInfo).port;

export function listening(server: Server) {
  return new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve(portOf(server))));
}

export function closing(server: Server) {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
}

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/**
 * A stand-in gateway that shows what reached it: `/api/v1/echo` answers with the request it got
 * (and two cookies), `/api/v1/upload` counts a streamed body, `/api/v1/download?mb=N` streams N MB,
 * `/api/v1/silent` never answers.
 */
export async function echoUpstream() {
  const seen: Seen[] = [];
  /** How far the current upload and the downloads have got, as the upstream sees them. */
  const progress = { uploaded: 0, downloadsFinished: 0 };
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://upstream');
    if (url.pathname === '/api/v1/silent') return;
    if (url.pathname === '/api/v1/upload') return countUpload(req, res, progress);
    if (url.pathname === '/api/v1/download')
      return download(res, Number(url.searchParams.get('mb')), () => {
        progress.downloadsFinished += 1;
      });
    res.writeHead(201, {
      'content-type': 'application/json',
      'set-cookie': ['a=1; Path=/', 'b=2; Path=/'],
      'x-upstream': 'echo',
      'keep-alive': 'timeout=5',
      // A header the gateway's Connection names is about that hop alone; its own framing rule
      // is replaced by the router's.
      connection: 'keep-alive, x-gateway-hop',
      'x-gateway-hop': 'dropped',
      'x-frame-options': 'SAMEORIGIN',
      // The gateway's own counts (per tenant tier), which the router's replace.
      'x-ratelimit-limit': '600',
      'x-ratelimit-reset': '1',
    });
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
  });
  const port = await listening(server);
  return { server, port, url: `http://127.0.0.1:${port}`, seen, progress, close: () => closing(server) };
}

function countUpload(req: IncomingMessage, res: ServerResponse, progress: { uploaded: number }) {
  progress.uploaded = 0;
  req.on('data', (chunk: Buffer) => {
    progress.uploaded += chunk.length;
  });
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ bytes: progress.uploaded }));
  });
}

const MB = 1024 * 1024;

function download(res: ServerResponse, mb: number, finished: () => void) {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': mb * MB });
  const chunk = Buffer.alloc(MB, 7);
  let left = mb;
  const write = () => {
    while (left > 0) {
      left -= 1;
      if (!res.write(chunk)) return void res.once('drain', write);
    }
    res.end(finished);
  };
  write();
}

export interface TestEdge extends RunningEdge {
  clock: ManualClock;
  config: EdgeConfig;
}

/** A router on port 0 in front of `gatewayUrl`, on a manual clock, silent unless TEST_EDGE_LOG is set. */
export async function testEdge(
  gatewayUrl: string,
  env: Record<string, string> = {},
  deps: EdgeDeps = {},
): Promise<TestEdge> {
  const config = loadEdgeConfig({
    EDGE_PORT: '0',
    GATEWAY_URL: gatewayUrl,
    SERVICE_DOMAIN: 'edge.test',
    STATIC_DIR: '/nonexistent/edge-static',
    ...env,
  });
  const clock = createManualClock('2026-03-01T12:00:00.000Z');
  const log = pino({ level: process.env.TEST_EDGE_LOG ?? 'silent' });
  const edge = await startEdge(config, { clock, log, ...deps });
  return { ...edge, clock, config };
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request to the router with any Host (fetch would not let a test choose it). */
export function call(
  port: number,
  options: { path: string; host?: string; method?: string; headers?: Record<string, string>; body?: string },
) {
  return new Promise<Answer>((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { host: options.host ?? 'alpha.edge.test', ...options.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
