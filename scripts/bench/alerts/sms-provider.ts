/** A real SMS provider on loopback: notes when each message arrived, by the bench token in its text. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startSmsProvider() {
  const arrivals = new Map<string, number>();
  let received = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      received += 1;
      const token = /bench-latency-(\d+)/.exec(Buffer.concat(chunks).toString())?.[0];
      if (token && !arrivals.has(token)) arrivals.set(token, at);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: `sms-${received}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`,
    arrivals,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
