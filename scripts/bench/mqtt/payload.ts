/**
 * The benchmark's message: 256 bytes whose head says which case it belongs to, who sent it, its
 * place in that publisher's sequence and when it left (ms on the wall clock, sub-millisecond:
 * performance.timeOrigin + performance.now(), which another process on this machine can compare
 * with its own). The rest is padding.
 */
const RUN = 0;
const PUBLISHER = 4;
const SEQUENCE = 6;
const SENT_AT = 10;
export const HEADER_BYTES = 18;

export interface MessageHead {
  runId: number;
  publisher: number;
  sequence: number;
  sentAt: number;
}

export const stamp = () => performance.timeOrigin + performance.now();

export function encodeMessage(size: number, runId: number, publisher: number, sequence: number) {
  const buffer = Buffer.alloc(Math.max(size, HEADER_BYTES));
  buffer.writeUInt32BE(runId, RUN);
  buffer.writeUInt16BE(publisher, PUBLISHER);
  buffer.writeUInt32BE(sequence, SEQUENCE);
  buffer.writeDoubleBE(stamp(), SENT_AT);
  return buffer;
}

export function decodeMessage(payload: Buffer): MessageHead | undefined {
  if (payload.length < HEADER_BYTES) return undefined;
  return {
    runId: payload.readUInt32BE(RUN),
    publisher: payload.readUInt16BE(PUBLISHER),
    sequence: payload.readUInt32BE(SEQUENCE),
    sentAt: payload.readDoubleBE(SENT_AT),
  };
}
