import { describe, expect, it } from 'vitest';
import { ownPayload } from '../../../../appliance/devices/broker/hooks.ts';

describe('a published payload the broker keeps', () => {
  it('is copied out of the larger chunk it was read in, so the chunk can die young', () => {
    const chunk = Buffer.alloc(16 * 1024, 7);
    const view = chunk.subarray(100, 356);
    const owned = ownPayload(view) as Buffer;
    expect(owned).not.toBe(view);
    expect(owned.equals(view)).toBe(true);
    expect(owned.buffer).not.toBe(chunk.buffer);
    // Changing the chunk (the socket's buffer reused) leaves the message as it was.
    chunk.fill(0);
    expect(owned.every((byte) => byte === 7)).toBe(true);
  });

  it('is left as it is when it already owns its memory (or is text)', () => {
    const alone = Buffer.from(new Uint8Array(256).fill(1).buffer);
    expect(ownPayload(alone)).toBe(alone);
    expect(ownPayload('{"temperature_c":4}')).toBe('{"temperature_c":4}');
  });
});
