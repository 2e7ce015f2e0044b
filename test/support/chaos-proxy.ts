import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/**
 * A real HTTP hop between an appliance and the cloud that misbehaves on request: a partition
 * (connections cut before anything reaches the cloud), an answer lost after the cloud applied the
 * push, a push delivered twice at once, and small delays that let batches in flight overtake one
 * another. Every push the cloud answered is kept, so a test can deliver it again much later.
 */
export interface ChaosProxy {
  url: string;
  partitioned: boolean;
  /** The next this many pushes reach the cloud, but their answers never reach the appliance. */
  loseAnswers: number;
  /** The next this many pushes reach the cloud twice, concurrently. */
  duplicatePushes: number;
  /** Delays (ms) taken in turn, one per request. */
  delays: number[];
  /** Push bodies the cloud has answered, in the order they were forwarded. */
  readonly delivered: string[];
  /** Sends an old push again, straight to the cloud; answers its status code. */
  replay(index: number): Promise<number>;
  close(): Promise<void>;
}

export async function startChaosProxy(target: string): Promise<ChaosProxy> {
  let delayTurn = 0;
  let authorization = '';

  const forward = async (req: IncomingMessage, body: Buffer) => {
    const answer = await request(`${target}${req.url}`, {
      method: req.method as 'GET' | 'POST',
      headers: {
        authorization: req.headers.authorization ?? '',
        ...(body.length > 0 ? { 'content-type': 'application/json' } : {}),
      },
      ...(body.length > 0 ? { body } : {}),
    });
    return { status: answer.statusCode, headers: answer.headers, text: await answer.body.text() };
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const delay = proxy.delays.length === 0 ? 0 : proxy.delays[delayTurn++ % proxy.delays.length]!;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (proxy.partitioned) return void req.socket.destroy();
    authorization = req.headers.authorization ?? authorization;
    const isPush = req.method === 'POST' && req.url === '/v1/sync/push';
    const twice = isPush && proxy.duplicatePushes > 0;
    if (twice) proxy.duplicatePushes -= 1;
    const [answer] = await Promise.all([forward(req, body), ...(twice ? [forward(req, body)] : [])]);
    if (isPush && answer!.status === 200) proxy.delivered.push(body.toString());
    if (isPush && proxy.loseAnswers > 0) {
      proxy.loseAnswers -= 1;
      return void req.socket.destroy();
    }
    const retryAfter = answer!.headers['retry-after'];
    res.writeHead(answer!.status, {
      'content-type': 'application/json',
      ...(typeof retryAfter === 'string' ? { 'retry-after': retryAfter } : {}),
    });
    res.end(answer!.text);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const proxy: ChaosProxy = {
    url: `http://127.0.0.1:${port}`,
    partitioned: false,
    loseAnswers: 0,
    duplicatePushes: 0,
    delays: [],
    delivered: [],
    async replay(index) {
      const body = proxy.delivered[index % proxy.delivered.length];
      if (body === undefined) return 0;
      const answer = await request(`${target}/v1/sync/push`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body,
      });
      await answer.body.text();
      return answer.statusCode;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
