import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoUpstream, type TestEdge, testEdge } from './edge-support.ts';

const MB = 1024 * 1024;
const TOTAL_MB = 64;

async function until(test: () => boolean, what: string, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('bodies streamed through the router', () => {
  let upstream: Awaited<ReturnType<typeof echoUpstream>>;
  let edge: TestEdge;
  beforeAll(async () => {
    upstream = await echoUpstream();
    edge = await testEdge(upstream.url);
  });
  afterAll(async () => {
    await edge.stop();
    await upstream.close();
  });

  it('passes an upload on as it arrives: the gateway reads its start before the client has sent the rest', async () => {
    const chunk = Buffer.alloc(MB, 1);
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: edge.port,
          method: 'POST',
          path: '/api/v1/upload',
          headers: { host: 'alpha.edge.test', 'content-type': 'application/octet-stream' },
          agent: false,
        },
        (res) => {
          let body = '';
          res.on('data', (data: Buffer) => {
            body += data.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      outgoing.on('error', reject);
      (async () => {
        for (let n = 0; n < 4; n++) outgoing.write(chunk);
        // Held back until the gateway has seen some of the first 4 MB: a router that buffered the
        // whole body first would never let this through.
        await until(() => upstream.progress.uploaded >= 2 * MB, 'the upload’s start at the gateway');
        expect(upstream.progress.uploaded).toBeLessThanOrEqual(4 * MB);
        for (let n = 4; n < TOTAL_MB; n++) {
          if (!outgoing.write(chunk)) await new Promise((resolve) => outgoing.once('drain', resolve));
        }
        outgoing.end();
      })().catch(reject);
    });
    const { status, body } = await answer;
    expect(status).toBe(200);
    expect(JSON.parse(body).bytes).toBe(TOTAL_MB * MB);
  });

  it('passes a download on with back-pressure: a client that stops reading holds the gateway back', async () => {
    let received = 0;
    const done = new Promise<number>((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: edge.port,
          path: `/api/v1/download?mb=${TOTAL_MB}`,
          headers: { host: 'alpha.edge.test' },
          agent: false,
        },
        (res) => {
          expect(res.headers['content-length']).toBe(String(TOTAL_MB * MB));
          res.once('data', (data: Buffer) => {
            received += data.length;
            res.pause();
            setTimeout(() => {
              // Socket buffers hold a few MB at most; the rest waits at the gateway.
              expect(upstream.progress.downloadsFinished).toBe(0);
              res.on('data', (more: Buffer) => {
                received += more.length;
              });
              res.resume();
            }, 300);
          });
          res.on('end', () => resolve(received));
          res.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(await done).toBe(TOTAL_MB * MB);
    expect(upstream.progress.downloadsFinished).toBe(1);
  });
});
