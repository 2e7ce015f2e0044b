import { describe, expect, it } from 'vitest';
import {
  createPacketScanner,
  DEFAULT_MAX_PACKET_BYTES,
} from '../../../../appliance/devices/broker/input-guard.ts';
import { stringProblem } from '../../../../appliance/devices/broker/packet-rules.ts';
import { BAD_UTF8, connectPacket, MALFORMED_CASES, packet, publishPacket } from './malformed-cases.ts';

const hex = (value: string) => Buffer.from(value.replace(/ /g, ''), 'hex');

describe('an MQTT UTF-8 string', () => {
  it.each([
    ['printable ASCII', Buffer.from('edge/sensor/store/fridge-1/alert')],
    ['accents', Buffer.from('café/crème')],
    ['CJK', Buffer.from('温度')],
    ['a code point past the BMP (4 bytes)', Buffer.from('🍟')],
    ['a byte order mark, which must not be skipped (MQTT-1.5.3-3)', hex('efbbbf 61')],
    ['U+FFFD itself', hex('efbfbd')],
    ['nothing', Buffer.alloc(0)],
  ])('passes with %s', (_name, bytes) => {
    expect(stringProblem(bytes, 'topic')).toBeUndefined();
  });

  it.each([
    ['a lead byte without its continuation', BAD_UTF8.invalid, 'MQTT-1.5.3-1'],
    ['a high surrogate (CESU-8)', BAD_UTF8.surrogate, 'MQTT-1.5.3-1'],
    ['a low surrogate (CESU-8)', hex('edb080'), 'MQTT-1.5.3-1'],
    ['a surrogate pair in CESU-8 form', hex('eda0bd edb99f'), 'MQTT-1.5.3-1'],
    ['an overlong form', BAD_UTF8.overlong, 'MQTT-1.5.3-1'],
    ['a code point past U+10FFFF', BAD_UTF8.beyondUnicode, 'MQTT-1.5.3-1'],
    ['a lone continuation byte', hex('80'), 'MQTT-1.5.3-1'],
    ['a sequence cut short at the end', hex('61 e282'), 'MQTT-1.5.3-1'],
    ['U+0000', BAD_UTF8.nul, 'MQTT-1.5.3-2'],
    ['a C0 control character', BAD_UTF8.control, 'MQTT 3.1.1 §1.5.3'],
    ['DEL', hex('7f'), 'MQTT 3.1.1 §1.5.3'],
    ['a C1 control character (U+0085)', hex('c285'), 'MQTT 3.1.1 §1.5.3'],
    ['a non-character (U+FFFF)', BAD_UTF8.nonCharacter, 'MQTT 3.1.1 §1.5.3'],
    ['a non-character (U+FDD0)', hex('efb790'), 'MQTT 3.1.1 §1.5.3'],
    ['a non-character past the BMP (U+1FFFF)', hex('f09fbfbf'), 'MQTT 3.1.1 §1.5.3'],
  ])('is refused with %s', (_name, bytes, rule) => {
    expect(stringProblem(Buffer.concat([Buffer.from('a/'), bytes]), 'topic')?.rule).toBe(rule);
  });
});

/** Feeds `bytes` to a fresh scanner `size` bytes at a time: the violation, and after how many bytes. */
function scanInChunks(bytes: Buffer, size: number, maxPacketBytes = DEFAULT_MAX_PACKET_BYTES) {
  const scanner = createPacketScanner(maxPacketBytes);
  for (let at = 0; at < bytes.length; at += size) {
    const violation = scanner.scan(bytes.subarray(at, at + size));
    if (violation) return { rule: violation.rule, after: Math.min(at + size, bytes.length) };
  }
  return undefined;
}

const CONNECT = connectPacket({ clientId: 'scanner' });
const context = { clientId: 'scanner', topic: 'edge/sensor/store/fridge-1/alert' };

describe('the packet scanner', () => {
  it('passes a well-formed conversation however it is cut into chunks', () => {
    const conversation = Buffer.concat([
      connectPacket({
        clientId: 'scanner',
        username: 'bearer',
        password: 'token',
        will: { topic: 'a/b', qos: 1 },
      }),
      publishPacket({ topic: context.topic, qos: 1, id: 7, payload: 'x'.repeat(70_000) }),
      packet(0x82, hex('0001'), hex('0003'), Buffer.from('a/#'), hex('02')), // SUBSCRIBE a/# at QoS 2
      packet(0xa2, hex('0002'), hex('0003'), Buffer.from('a/#')), // UNSUBSCRIBE a/#
      hex('4002 0007'), // PUBACK
      hex('c000'), // PINGREQ
      hex('e000'), // DISCONNECT
    ]);
    for (const size of [1, 2, 3, 5, 64, 16_384, conversation.length])
      expect(scanInChunks(conversation, size), `chunks of ${size}`).toBeUndefined();
  });

  it.each(
    MALFORMED_CASES.filter((malformed) => malformed.connected).map(
      (malformed) => [malformed.name, malformed] as const,
    ),
  )('tells %s the same way however it is cut into chunks', (_name, malformed) => {
    const bytes = Buffer.concat([CONNECT, malformed.bytes(context)]);
    const whole = scanInChunks(bytes, bytes.length);
    for (const size of [1, 2, 3, 7])
      expect(scanInChunks(bytes, size)?.rule, `chunks of ${size}`).toBe(whole?.rule);
  });

  it('tells a bad topic as soon as the topic is in, before any of the payload', () => {
    const topic = Buffer.concat([Buffer.from('a/'), BAD_UTF8.surrogate]);
    const bytes = publishPacket({ topic, payload: 'x'.repeat(1000) });
    const headerLength = 3; // first byte and two bytes of remaining length
    expect(scanInChunks(Buffer.concat([CONNECT, bytes]), 1)).toEqual({
      rule: 'MQTT-1.5.3-1',
      after: CONNECT.length + headerLength + 2 + topic.length,
    });
  });

  it('tells a packet over the limit on the last byte of its remaining length', () => {
    const bytes = Buffer.concat([CONNECT, hex('30 ffffff7f')]);
    expect(scanInChunks(bytes, 1)).toEqual({ rule: 'maximum packet size', after: bytes.length });
  });

  it('counts the fixed header in the limit', () => {
    const publish = publishPacket({ topic: 'a', payload: 'x'.repeat(100) });
    expect(scanInChunks(Buffer.concat([CONNECT, publish]), 1, publish.length)).toBeUndefined();
    expect(scanInChunks(Buffer.concat([CONNECT, publish]), 1, publish.length - 1)?.rule).toBe(
      'maximum packet size',
    );
  });
});
