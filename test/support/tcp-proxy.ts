import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/**
 * A TCP hop that can be cut: `cut()` drops every connection through it and refuses new ones
 * (as a store's uplink going down does), `restore()` lets them through again.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let open = true;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((downstream) => {
    track(downstream);
    if (!open) return void downstream.destroy();
    const upstream = connect(target.port, target.host);
    track(upstream);
    downstream.pipe(upstream);
    upstream.pipe(downstream);
    upstream.on('close', () => downstream.destroy());
    downstream.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (scheme: string) => `${scheme}://127.0.0.1:${port}`,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      open = true;
    },
    close() {
      open = false;
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type TcpProxy = Awaited<ReturnType<typeof startTcpProxy>>;
