/**
 * Frame buffers are reused, not allocated per frame: at 1280x720 a frame is 1.4 MB, and eight
 * cameras at a few frames a second would otherwise keep the garbage collector busy. At most three
 * are in use per camera (one filling, one waiting, one with the consumer), so the pool stays small.
 * A consumer must be done with a frame (the detector's answer in) before it is given back: the
 * detection worker reads the same memory.
 */
export interface FramePool {
  take(): Buffer;
  give(buffer: Buffer): void;
  /** Buffers allocated so far: stays at three in steady state; growth would mean a leak. */
  readonly allocated: number;
}

export function createFramePool(frameBytes: number): FramePool {
  const free: Buffer[] = [];
  let allocated = 0;
  return {
    take() {
      const reused = free.pop();
      if (reused) return reused;
      allocated += 1;
      // Shared memory: the detection worker reads the frame where it is. Posting a plain buffer
      // copies it (1.4 MB a frame at 720p) and the copies' external memory kept the main thread's
      // garbage collector doing full collections several times a second with eight cameras.
      return Buffer.from(new SharedArrayBuffer(frameBytes));
    },
    give(buffer) {
      if (buffer.length !== frameBytes) return;
      free.push(buffer);
    },
    get allocated() {
      return allocated;
    },
  };
}

export interface FrameFiller {
  /** The free part of the frame being filled (a frame is taken from the pool when none is). */
  space(): Buffer;
  /** Counts `bytes` written into the last space; calls `onFrame` when the frame is full. */
  wrote(bytes: number): void;
  /** Gives the partly filled frame back: its process is gone. */
  dispose(): void;
}

/** Frames filled in place by reads into them (ffmpeg.ts reads the FIFO into `space()`). */
export function createFrameFiller(
  frameBytes: number,
  pool: FramePool,
  onFrame: (data: Buffer) => void,
): FrameFiller {
  let target: Buffer | undefined;
  let filled = 0;
  return {
    space() {
      target ??= pool.take();
      return target.subarray(filled);
    },
    wrote(bytes) {
      filled += bytes;
      if (!target || filled < frameBytes) return;
      const done = target;
      target = undefined;
      filled = 0;
      onFrame(done);
    },
    dispose() {
      if (target) pool.give(target);
      target = undefined;
      filled = 0;
    },
  };
}
