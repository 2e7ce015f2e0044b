import { generate, type IPublishPacket } from 'mqtt-packet';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BATCH_BYTES } from '../../../../appliance/devices/broker/intake.ts';
import { connectPacket, rawClient } from './raw-client.ts';
import { inbox, type Pki, startTestBroker, type TestBroker, testPki, waitFor } from './support.ts';

let pki: Pki;
let rig: TestBroker | undefined;
beforeAll(async () => {
  pki = await testPki();
});
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const publish = (topic: string, payload: Buffer): IPublishPacket => ({
  cmd: 'publish',
  topic,
  payload,
  qos: 0,
  retain: false,
  dup: false,
});

/** Records the size of every batch aedes parses for the next client that connects. */
function batchSizes(target: TestBroker) {
  const sizes: number[] = [];
  target.broker.aedes.once('client', (client) => {
    const parser = (client as unknown as { _parser: { parse(buf: Buffer): number } })._parser;
    const parse = parser.parse.bind(parser);
    parser.parse = (buf) => {
      sizes.push(buf.length);
      return parse(buf);
    };
  });
  return sizes;
}

describe('what a connection hands to the broker at once', () => {
  it('is parsed in bounded batches, and every message of a burst arrives in order', async () => {
    rig = await startTestBroker(pki);
    const subscriber = await rig.tcpClient('intake-sub');
    await subscriber.subscribeAsync('burst/#');
    const seen = inbox(subscriber);
    const sizes = batchSizes(rig);
    const publisher = await rawClient(rig.broker.tcpPort!);
    publisher.send(connectPacket('intake-pub', true));
    await publisher.take('connack');
    const count = 2000;
    const burst = Array.from({ length: count }, (_, i) =>
      generate(publish(`burst/${i % 10}`, Buffer.alloc(256, 33 + (i % 90)))),
    );
    publisher.socket.write(Buffer.concat(burst)); // one write: far more than one batch buffered
    await seen.next(count, 10_000);
    expect(seen.messages.map((message) => message.payload.charCodeAt(0))).toEqual(
      Array.from({ length: count }, (_, i) => 33 + (i % 90)),
    );
    expect(Math.max(...sizes)).toBeLessThanOrEqual(DEFAULT_BATCH_BYTES);
    publisher.close();
  });

  it('passes a packet larger than a batch, with nothing more to come from the socket', async () => {
    rig = await startTestBroker(pki);
    const subscriber = await rig.tcpClient('intake-big-sub');
    await subscriber.subscribeAsync('big/#');
    const seen = inbox(subscriber);
    const publisher = await rawClient(rig.broker.tcpPort!);
    publisher.send(connectPacket('intake-big-pub', true));
    await publisher.take('connack');
    const big = Buffer.alloc(10 * DEFAULT_BATCH_BYTES + 123, 'b');
    // Both in one write: the second is read only after the first's slices were parsed.
    publisher.socket.write(
      Buffer.concat([generate(publish('big/one', big)), generate(publish('big/two', Buffer.from('after')))]),
    );
    await seen.next(2, 10_000);
    expect(seen.messages.map((message) => message.payload.length)).toEqual([big.length, 5]);
    publisher.close();
    await waitFor(() => rig!.find('client disconnected').length > 0);
  });
});
