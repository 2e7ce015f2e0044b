/**
 * The broker's sockets: plain TCP for development and TLS with client certificates for devices.
 * Each listener remembers its sockets, so closing it does not wait on a client that never speaks.
 */
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';

export interface Listener {
  port: number;
  close(): Promise<void>;
}

export interface TlsListener extends Listener {
  /** New handshakes use this material; connected clients keep theirs. */
  renew(material: TlsMaterial): void;
}

export interface TlsMaterial {
  key: string | Buffer;
  cert: string | Buffer;
  ca: string | Buffer;
  crl?: string | Buffer | undefined;
}

async function listen(server: Server, host: string, port: number): Promise<Listener> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

export function listenTcp(host: string, port: number, onSocket: (socket: Socket) => void) {
  const server = createNetServer({ noDelay: true }, onSocket);
  return listen(server, host, port);
}

/**
 * Only clients with a certificate of the device CA get past the handshake; an expired or
 * listed-in-`crl` certificate never reaches the broker. What the certificate says is read by the
 * caller from the socket.
 */
const secureOptions = (material: TlsMaterial) => ({
  key: material.key,
  cert: material.cert,
  ca: material.ca,
  ...(material.crl ? { crl: material.crl } : {}),
});

export async function listenTls(
  host: string,
  port: number,
  material: TlsMaterial,
  log: Logger,
  onSocket: (socket: TLSSocket) => void,
): Promise<TlsListener> {
  const server = createTlsServer(
    {
      ...secureOptions(material),
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
      noDelay: true,
    },
    onSocket,
  );
  server.on('tlsClientError', (error: Error, socket: TLSSocket) => {
    log.warn({ remoteAddress: socket.remoteAddress, reason: error.message }, 'TLS handshake refused');
  });
  const listener = await listen(server, host, port);
  return { ...listener, renew: (next) => server.setSecureContext(secureOptions(next)) };
}
