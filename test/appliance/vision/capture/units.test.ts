import { describe, expect, it } from 'vitest';
import { createBackoff } from '../../../../appliance/vision/capture/backoff.ts';
import { captureArgs, resolveFfmpegPath, sourceKind } from '../../../../appliance/vision/capture/ffmpeg.ts';
import { createFrameFiller, createFramePool } from '../../../../appliance/vision/capture/frame-pool.ts';
import { createLatestFrameSlot } from '../../../../appliance/vision/capture/latest-frame.ts';

const size = { width: 640, height: 360, fps: 5 };

describe('ffmpeg command', () => {
  it('takes FFMPEG_PATH over the bundled binary', () => {
    expect(resolveFfmpegPath({ FFMPEG_PATH: '/usr/bin/ffmpeg' })).toBe('/usr/bin/ffmpeg');
    expect(resolveFfmpegPath({})).toMatch(/ffmpeg$/);
  });

  it('tells sources apart by scheme', () => {
    expect(sourceKind('rtsp://cam/stream1')).toBe('rtsp');
    expect(sourceKind('RTSPS://cam/stream1')).toBe('rtsp');
    expect(sourceKind('https://cam/live.ts')).toBe('http');
    expect(sourceKind('/data/clip.mp4')).toBe('file');
    expect(sourceKind('file:///data/clip.mp4')).toBe('file');
  });

  it('reads RTSP over TCP with a socket timeout and without input buffering', () => {
    const args = captureArgs({ url: 'rtsp://cam/stream1', ...size, ioTimeoutMs: 3000 }).join(' ');
    expect(args).toContain('-rtsp_transport tcp -stimeout 3000000');
    expect(args).toContain('-fflags nobuffer -flags low_delay');
    expect(args).not.toContain('-re');
    expect(args).toMatch(/-i rtsp:\/\/cam\/stream1 .*-filter:v fps=5,scale=640:360:flags=bilinear/);
    expect(args).toMatch(/-pix_fmt yuv420p -f rawvideo .*pipe:1$/);
  });

  it('plays files in real time, looping when asked', () => {
    const once = captureArgs({ url: 'file:///data/clip.mp4', ...size });
    expect(once.join(' ')).toContain('-re -i /data/clip.mp4');
    expect(once).not.toContain('-stream_loop');
    expect(once).not.toContain('-y');
    const looped = captureArgs({ url: '/data/clip.mp4', ...size, loop: true }).join(' ');
    expect(looped).toContain('-re -stream_loop -1 -i /data/clip.mp4');
  });

  it('gives HTTP sources an I/O timeout', () => {
    expect(captureArgs({ url: 'http://cam/live.ts', ...size }).join(' ')).toContain('-rw_timeout 5000000');
  });
});

describe('frame assembly', () => {
  it('fills frames in place from reads of any size, a read never running past a frame', () => {
    const frameBytes = 10;
    const stream = Buffer.from(Array.from({ length: 47 }, (_, i) => i));
    const frames: number[][] = [];
    const pool = createFramePool(frameBytes);
    const filler = createFrameFiller(frameBytes, pool, (data) => {
      frames.push([...data]);
      pool.give(data);
    });
    // What the FIFO reader does: read at most the space given, straight into it.
    let offset = 0;
    for (const wanted of [3, 14, 1, 19, 7, 3]) {
      let left = wanted;
      while (left > 0 && offset < stream.length) {
        const space = filler.space();
        const bytes = Math.min(left, space.length, stream.length - offset);
        stream.copy(space, 0, offset, offset + bytes);
        filler.wrote(bytes);
        offset += bytes;
        left -= bytes;
      }
    }
    expect(frames).toEqual([0, 1, 2, 3].map((f) => Array.from({ length: 10 }, (_, i) => f * 10 + i)));
    expect(pool.allocated).toBe(1);
  });

  it('gives a partly filled frame back when its process is gone', () => {
    const pool = createFramePool(4);
    const filler = createFrameFiller(4, pool, () => {});
    filler.space()[0] = 9;
    filler.wrote(1);
    filler.dispose();
    expect(pool.allocated).toBe(1);
    const next = createFrameFiller(4, pool, () => {});
    expect(next.space().length).toBe(4);
    expect(pool.allocated).toBe(1);
  });

  it('hands out frames in shared memory, which a worker reads without a copy', () => {
    const pool = createFramePool(8);
    const buffer = pool.take();
    expect(buffer.buffer).toBeInstanceOf(SharedArrayBuffer);
    buffer[3] = 42;
    // What postMessage does to it: the clone is a view of the same memory.
    const seen = structuredClone(buffer) as Uint8Array;
    seen[5] = 7;
    expect([buffer[5], seen[3]]).toEqual([7, 42]);
    pool.give(buffer);
    expect(pool.take()).toBe(buffer);
    expect(pool.allocated).toBe(1);
  });
});

describe('latest frame wins', () => {
  it('keeps one frame waiting while the consumer is busy, replacing it with newer ones', async () => {
    const released: number[] = [];
    const seen: number[] = [];
    const slot = createLatestFrameSlot<number>({ release: (n) => released.push(n), onError: () => {} });
    let finish = () => {};
    slot.setHandler((n) => {
      seen.push(n);
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    for (const n of [1, 2, 3, 4]) slot.offer(n);
    expect(seen).toEqual([1]);
    expect(released).toEqual([2, 3]);
    finish();
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toEqual([1, 4]);
    expect(released).toEqual([2, 3, 1]);
    expect(slot.dropped).toBe(2);
    expect(slot.delivered).toBe(2);
  });

  it('goes on after a handler throws or rejects', async () => {
    const errors: unknown[] = [];
    const slot = createLatestFrameSlot<number>({ release: () => {}, onError: (e) => errors.push(e) });
    slot.setHandler((n) => {
      if (n === 1) throw new Error('sync');
      return Promise.reject(new Error('async'));
    });
    slot.offer(1);
    slot.offer(2);
    await new Promise((resolve) => setImmediate(resolve));
    slot.offer(3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors.map((e) => (e as Error).message)).toEqual(['sync', 'async', 'async']);
    expect(slot.delivered).toBe(3);
  });
});

describe('back-off', () => {
  it('doubles up to the ceiling and starts over after a reset', () => {
    const backoff = createBackoff({ initialMs: 100, maxMs: 1000, jitter: 0 });
    expect([1, 2, 3, 4, 5].map(() => backoff.next())).toEqual([100, 200, 400, 800, 1000]);
    backoff.reset();
    expect(backoff.next()).toBe(100);
  });

  it('spreads retries within the jitter', () => {
    const low = createBackoff({ initialMs: 1000, maxMs: 10_000, jitter: 0.2 }, () => 0);
    const high = createBackoff({ initialMs: 1000, maxMs: 10_000, jitter: 0.2 }, () => 1);
    expect([low.next(), high.next()]).toEqual([900, 1100]);
  });
});
