import { Writable } from 'node:stream';
import { generate, type IPublishPacket, writeToStream } from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { coalesceWrites, FLUSH_BYTES } from '../../../../appliance/devices/broker/outbound.ts';

/** A stream that records each chunk it is handed, and calls back only when told (or at once). */
function recorder(options: { highWaterMark?: number; hold?: boolean } = {}) {
  const chunks: Buffer[] = [];
  const held: Array<() => void> = [];
  const stream = new Writable({
    highWaterMark: options.highWaterMark ?? 16 * 1024,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      if (options.hold) held.push(() => callback());
      else callback();
    },
  });
  const release = () => {
    for (const done of held.splice(0)) done();
  };
  return { stream, chunks, release };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

const publish = (messageId: number, payload: Buffer): IPublishPacket => ({
  cmd: 'publish',
  topic: 'edge/sensor/a/b/telemetry',
  payload,
  qos: 1,
  messageId,
  retain: false,
  dup: false,
});

describe("a connection's writes", () => {
  it('reach the socket as one chunk per turn, byte for byte as mqtt-packet writes them', async () => {
    const { stream, chunks } = recorder();
    coalesceWrites(stream);
    const packets = [publish(1, Buffer.alloc(256, 1)), publish(2, Buffer.alloc(256, 2))];
    for (const packet of packets) writeToStream(packet, stream);
    expect(chunks).toEqual([]);
    await turn();
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toEqual(Buffer.concat(packets.map((packet) => generate(packet))));
  });

  it('keep their order around a write with a callback, and before end', async () => {
    const { stream, chunks } = recorder();
    coalesceWrites(stream);
    stream.write('a');
    stream.write(Buffer.from('b'));
    stream.write('c', () => {});
    stream.write('d');
    stream.end('e');
    await new Promise((resolve) => stream.once('finish', resolve));
    expect(Buffer.concat(chunks).toString()).toBe('abcde');
  });

  it('go at once past FLUSH_BYTES, without waiting for the turn to end', () => {
    const { stream, chunks } = recorder({ highWaterMark: 4 * FLUSH_BYTES });
    coalesceWrites(stream);
    stream.write(Buffer.alloc(FLUSH_BYTES - 1));
    expect(chunks).toHaveLength(0);
    stream.write(Buffer.alloc(1));
    expect(chunks.map((chunk) => chunk.length)).toEqual([FLUSH_BYTES]);
  });

  it('are answered false while the socket needs to drain, and true once it has', async () => {
    const { stream, release } = recorder({ highWaterMark: 64, hold: true });
    coalesceWrites(stream);
    expect(stream.write(Buffer.alloc(100))).toBe(true);
    await turn();
    expect(stream.write(Buffer.alloc(10))).toBe(false);
    const drained = new Promise((resolve) => stream.once('drain', resolve));
    release();
    await turn();
    release();
    await drained;
    expect(stream.write(Buffer.alloc(10))).toBe(true);
  });

  it('are dropped with the connection when it is destroyed before the turn ends', async () => {
    const { stream, chunks } = recorder();
    coalesceWrites(stream);
    stream.write('lost');
    stream.destroy();
    await turn();
    expect(chunks).toEqual([]);
  });
});
