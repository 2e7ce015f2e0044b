import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLiveView, type Seen } from '../../../../appliance/vision/pipeline/live-view.ts';
import { createCounterHistory, createRecentSamples } from '../../../../appliance/vision/pipeline/recent.ts';
import type { Frame } from '../../../../appliance/vision/types.ts';

const frame = (seq: number, data = Buffer.alloc(4 * 2 * 3, seq)): Frame => ({
  cameraId: 'cam',
  seq,
  capturedAt: 1_000_000 + seq * 100,
  width: 4,
  height: 2,
  data,
});

describe('a camera’s figures over the last minute', () => {
  it('takes percentiles of the samples in the span only', () => {
    const samples = createRecentSamples(60_000, 8);
    expect(samples.percentiles(0)).toEqual({ p50: null, p99: null });
    samples.add(0, 500);
    for (let i = 1; i <= 4; i++) samples.add(30_000 + i, i * 10);
    expect(samples.percentiles(59_999)).toEqual({ p50: 30, p99: 500 });
    // A minute on, the 500 ms run has left the span.
    expect(samples.percentiles(60_000)).toEqual({ p50: 30, p99: 40 });
    expect(samples.percentiles(100_000)).toEqual({ p50: null, p99: null });
  });

  it('keeps a full ring’s newest samples', () => {
    const samples = createRecentSamples(60_000, 4);
    for (let i = 0; i < 10; i++) samples.add(i, i);
    expect(samples.percentiles(10)).toEqual({ p50: 8, p99: 9 });
  });

  it('counts a growing counter’s increase over the last minute, from zero while younger', () => {
    const dropped = createCounterHistory(60_000);
    let reads = 0;
    const at = (value: number) => () => {
      reads += 1;
      return value;
    };
    dropped.sample(0, at(0));
    dropped.sample(500, at(99));
    expect(reads).toBe(1);
    for (let s = 1; s <= 90; s++) dropped.sample(s * 1000, at(s * 2));
    expect(dropped.increase(30_000, 60)).toBe(60);
    // 90 s in: the newest sample a minute old is the one at 30 s (60 dropped then).
    expect(dropped.increase(90_000, 180)).toBe(120);
    // Nothing sampled for a while (the camera was offline): nothing dropped meanwhile either.
    expect(dropped.increase(500_000, 180)).toBe(0);
  });
});

describe('a camera’s live view', () => {
  afterEach(() => vi.useRealTimers());

  const seen = (seq: number): Seen => ({ seq, capturedAt: seq, detections: [], tracks: [] });

  it('keeps the last frames’ views by seq, without their pixels', () => {
    const live = createLiveView('cam', 3);
    expect(live.view()).toBeUndefined();
    for (let seq = 1; seq <= 5; seq++) live.show(frame(seq), seq % 2 ? seen(seq) : seen(seq - 1));
    expect(live.view()).toMatchObject({ seq: 5, width: 4, height: 2, seen: { seq: 5 } });
    expect(live.view(4)).toMatchObject({ seq: 4, seen: { seq: 3 } });
    expect(live.view(2)).toBeUndefined();
    expect(Object.keys(live.view(3)!)).not.toContain('data');
  });

  it('lends the next frame to each caller waiting, once', async () => {
    const live = createLiveView('cam');
    const first = live.next(1000, (f, view) => ({ copy: Buffer.from(f.data), seq: view.seq }));
    const second = live.next(1000, (f) => f.seq);
    const lent = frame(7);
    live.show(lent, undefined);
    lent.data.fill(0);
    const taken = await first;
    expect(taken.seq).toBe(7);
    expect(taken.copy.every((byte) => byte === 7)).toBe(true);
    expect(await second).toBe(7);
    const third = live.next(1000, (f) => f.seq);
    live.show(frame(8), undefined);
    expect(await third).toBe(8);
  });

  it('rejects a caller when no frame comes in time, when its function throws, and on stop', async () => {
    vi.useFakeTimers();
    const live = createLiveView('cam');
    const late = live.next(2000, () => 1);
    vi.advanceTimersByTime(2000);
    await expect(late).rejects.toThrow('camera cam gave no frame in 2000 ms');
    const broken = live.next(2000, () => {
      throw new Error('too small');
    });
    live.show(frame(1), undefined);
    await expect(broken).rejects.toThrow('too small');
    const stopped = live.next(2000, () => 1);
    live.close('stopped');
    await expect(stopped).rejects.toThrow('camera cam stopped');
    expect(live.view()).toBeUndefined();
  });
});
