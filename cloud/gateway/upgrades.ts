import type { Server } from 'node:http';
import type { Socket } from 'node:net';

const NOT_FOUND = [
  'HTTP/1.1 404 Not Found',
  'content-type: text/plain; charset=utf-8',
  'content-length: 9',
  'connection: close',
  '',
  'Not Found',
].join('\r\n');

/**
 * The gateway's WebSockets are the modules' own `upgrade` listeners, each taking only its path; an
 * upgrade to any other path reached none of them and was left open, unanswered, and kept the server
 * from closing. It gets a 404 and the connection ends.
 */
export function refuseUnclaimedUpgrades(server: Server, claimedPaths: readonly string[]) {
  server.on('upgrade', (request, socket) => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    if (claimedPaths.includes(path)) return;
    // After this turn's other listeners: one added later for its own path (a test's, a plugin's)
    // has answered by then, and its answer stands.
    setImmediate(() => {
      if (socket.destroyed || socket.writableEnded || (socket as Socket).bytesWritten > 0) return;
      socket.on('error', () => socket.destroy());
      socket.end(NOT_FOUND);
    });
  });
}
