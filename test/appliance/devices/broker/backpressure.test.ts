import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBackpressure } from '../../../../appliance/devices/broker/backpressure.ts';

const CONGESTED = 1024;
const STALL_MS = 500;

/** A connection whose writes are taken only when told: what it was handed stays unsent until then. */
function connection() {
  const held: Array<() => void> = [];
  const conn = new Writable({
    highWaterMark: 64,
    write(_chunk, _encoding, callback) {
      held.push(() => callback());
    },
  });
  return {
    conn,
    drain: () => {
      while (held.length > 0) held.shift()!();
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('reading while a subscriber is congested', () => {
  it('waits until the congested connection drains, then resumes', async () => {
    const gate = createBackpressure({ congestedBytes: CONGESTED, stallMs: STALL_MS });
    const subscriber = connection();
    const publisher = connection();
    gate.watch(subscriber.conn);
    gate.watch(publisher.conn);
    expect(gate.mayRead(publisher.conn, () => {})).toBe(true);

    subscriber.conn.write(Buffer.alloc(CONGESTED + 1));
    const resume = vi.fn();
    expect(gate.mayRead(publisher.conn, resume)).toBe(false);
    await vi.advanceTimersByTimeAsync(STALL_MS / 2);
    expect(resume).not.toHaveBeenCalled();

    subscriber.drain();
    await vi.advanceTimersByTimeAsync(0);
    expect(resume).toHaveBeenCalledOnce();
    expect(gate.mayRead(publisher.conn, () => {})).toBe(true);
  });

  it('does not hold back the congested connection itself', () => {
    const gate = createBackpressure({ congestedBytes: CONGESTED, stallMs: STALL_MS });
    const subscriber = connection();
    gate.watch(subscriber.conn);
    subscriber.conn.write(Buffer.alloc(CONGESTED + 1));
    expect(gate.mayRead(subscriber.conn, () => {})).toBe(true);
  });

  it('stops waiting for a connection that has not drained for stallMs', async () => {
    const gate = createBackpressure({ congestedBytes: CONGESTED, stallMs: STALL_MS });
    const frozen = connection();
    const publisher = connection();
    gate.watch(frozen.conn);
    frozen.conn.write(Buffer.alloc(CONGESTED + 1));
    const resume = vi.fn();
    expect(gate.mayRead(publisher.conn, resume)).toBe(false);
    await vi.advanceTimersByTimeAsync(STALL_MS);
    expect(resume).toHaveBeenCalledOnce();
    expect(gate.mayRead(publisher.conn, () => {})).toBe(true);
  });

  it('lets the others read once the congested connection closes', async () => {
    const gate = createBackpressure({ congestedBytes: CONGESTED, stallMs: STALL_MS });
    const subscriber = connection();
    const publisher = connection();
    gate.watch(subscriber.conn);
    subscriber.conn.write(Buffer.alloc(CONGESTED + 1));
    const resume = vi.fn();
    expect(gate.mayRead(publisher.conn, resume)).toBe(false);
    subscriber.conn.destroy();
    await vi.advanceTimersByTimeAsync(0);
    expect(resume).toHaveBeenCalledOnce();
    expect(gate.mayRead(publisher.conn, () => {})).toBe(true);
  });
});
