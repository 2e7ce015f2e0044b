import { describe, expect, it } from 'vitest';
import { createLanes } from '../../cloud/flows/lanes.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('lanes', () => {
  it('runs at most `width` tasks at once and starts the waiting ones in arrival order', async () => {
    const lanes = createLanes(2);
    const gates = new Map<number, () => void>();
    const started: number[] = [];
    const results = [0, 1, 2, 3, 4].map((n) =>
      lanes.run(async () => {
        started.push(n);
        await new Promise<void>((resolve) => gates.set(n, resolve));
        return n * 10;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(lanes.load()).toEqual({ running: 2, waiting: 3 });
    gates.get(1)!();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates.get(0)!();
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const n of [2, 3]) gates.get(n)!();
    await tick();
    gates.get(4)!();
    expect(await Promise.all(results)).toEqual([0, 10, 20, 30, 40]);
    expect(lanes.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the lane of a task that throws, and passes the error on', async () => {
    const lanes = createLanes(1);
    await expect(lanes.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lanes.run(async () => 'next')).toBe('next');
    expect(lanes.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a width below one', () => {
    expect(() => createLanes(0)).toThrow(RangeError);
  });
});
