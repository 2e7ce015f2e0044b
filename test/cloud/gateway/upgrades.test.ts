import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCloud, type TestCloud } from '../../support/cloud.ts';

/** The raw answer to a WebSocket handshake for `path`, read until the server closes or 2 s pass. */
function upgrade(port: number, path: string) {
  const socket = connect(port, '127.0.0.1');
  return new Promise<{ closed: boolean; head: string }>((resolve) => {
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ closed: false, head: data });
    }, 2000);
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, head: data });
    });
    socket.write(
      [
        `GET ${path} HTTP/1.1`,
        'Host: 127.0.0.1',
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        '',
        '',
      ].join('\r\n'),
    );
  });
}

describe('WebSocket upgrades the gateway does not serve', () => {
  let cloud: TestCloud;
  let port: number;

  beforeAll(async () => {
    cloud = await createTestCloud('sqlite');
    await cloud.app.listen({ port: 0, host: '127.0.0.1' });
    port = (cloud.app.server.address() as { port: number }).port;
  });
  afterAll(() => cloud.close());

  it('answers 404 and closes, for an unknown path and for a plain HTTP route', async () => {
    for (const path of ['/api/v1/no-such-socket', '/health', '/api/v1/chat/config?x=1']) {
      const answer = await upgrade(port, path);
      expect(answer, path).toMatchObject({ closed: true });
      expect(answer.head, path).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    }
  });

  it('still upgrades the chat socket', async () => {
    const answer = await upgrade(port, '/api/v1/chat/ws');
    expect(answer.head).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
  });
});
