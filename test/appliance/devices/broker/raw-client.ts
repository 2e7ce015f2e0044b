import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { generate, type Packet, parser } from 'mqtt-packet';

/**
 * An MQTT 3.1.1 client that does only what a test tells it, packet by packet: for the cases a
 * well-behaved client library refuses to produce (an empty client id without a clean session, a
 * QoS 2 exchange cut in the middle, a subscriber that never reads).
 */
export async function rawClient(
  port: number,
  options: { read?: boolean; tls?: { ca: string; cert: string; key: string } } = {},
) {
  const socket: Socket = options.tls
    ? connectTls({ port, host: '127.0.0.1', ...options.tls })
    : connect(port, '127.0.0.1');
  await once(socket, options.tls ? 'secureConnect' : 'connect');
  const received: Packet[] = [];
  const closed = once(socket, 'close').then(() => true);
  socket.on('error', () => {});
  if (options.read !== false) {
    const incoming = parser({ protocolVersion: 4 });
    incoming.on('packet', (packet: Packet) => received.push(packet));
    socket.on('data', (chunk: Buffer) => incoming.parse(chunk));
  }
  return {
    socket,
    received,
    closed,
    send(packet: Packet) {
      socket.write(generate(packet));
    },
    sendBytes(bytes: number[]) {
      socket.write(Buffer.from(bytes));
    },
    /** Waits for (and takes) the next received packet of this kind. */
    async take(cmd: Packet['cmd'], timeoutMs = 5000): Promise<Packet> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = received.findIndex((packet) => packet.cmd === cmd);
        if (index >= 0) return received.splice(index, 1)[0]!;
        if (Date.now() > deadline) throw new Error(`no ${cmd} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    close() {
      socket.destroy();
    },
  };
}

/** CONNECT, MQTT 3.1.1, empty client id, clean session 0: bytes, since mqtt-packet refuses to write it. */
export const EMPTY_ID_PERSISTENT_CONNECT = [
  0x10, 0x0c, 0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x04, 0x00, 0x00, 0x3c, 0x00, 0x00,
];

export const connectPacket = (clientId: string, clean: boolean): Packet => ({
  cmd: 'connect',
  protocolId: 'MQTT',
  protocolVersion: 4,
  clientId,
  clean,
  keepalive: 60,
});
