/**
 * A bare Node proxy as one is usually written (node:http server, undici's pool, headers copied, one
 * header added), with none of the router's rules (no tenant, no limiter, no hop-by-hop care, no
 * timeouts or error answers): what Node and a stock client cost before any rule. The router, on
 * connections of its own (cloud/edge/exchange.ts), is measured against it and against nginx.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

const gateway = process.env.GATEWAY_URL;
if (!gateway) throw new Error('GATEWAY_URL is required');
const pool = new Pool(gateway);

function proxy(req: IncomingMessage, res: ServerResponse) {
  const headers = { ...req.headers, 'x-tenant-id': 'bench' };
  delete headers.connection;
  let resume: (() => void) | undefined;
  pool.dispatch(
    { method: 'GET', path: req.url ?? '/', headers: headers as Record<string, string | string[]> },
    {
      onConnect() {},
      onHeaders(status, raw, resumeResponse) {
        resume = resumeResponse;
        const answer: Record<string, string> = {};
        for (let i = 0; i < raw.length; i += 2)
          answer[raw[i]!.toString('latin1').toLowerCase()] = raw[i + 1]!.toString('latin1');
        delete answer.connection;
        delete answer['keep-alive'];
        res.writeHead(status, answer);
        return true;
      },
      onData: (chunk) => res.write(chunk),
      onComplete: () => res.end(),
      onError: () => res.destroy(),
    },
  );
  res.on('drain', () => resume?.());
}

const server = createServer(proxy);
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
const stop = () => server.close(() => pool.destroy().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop).resume();
