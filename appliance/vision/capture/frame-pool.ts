/**
 * Frame buffers are reused, not allocated per frame: at 1280x720 a frame is 2.7 MB, and eight
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
      // copies it (2.7 MB a frame at 720p) and the copies' external memory kept the main thread's
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

export interface FrameAssembler {
  /** Copies a stdout chunk into frames; calls `onFrame` for each one completed. */
  push(chunk: Buffer): void;
  /** Drops a partly filled frame: a new ffmpeg process starts on a frame boundary. */
  reset(): void;
}

/**
 * Cuts ffmpeg's raw stdout (chunks of any size, 64 KiB from a pipe) into exact frames with one
 * copy per byte and no concatenation: each chunk is copied straight to its place in the frame
 * being filled, and a chunk that spans two frames is split between them.
 */
export function createFrameAssembler(
  frameBytes: number,
  pool: FramePool,
  onFrame: (data: Buffer) => void,
): FrameAssembler {
  let target: Buffer | undefined;
  let filled = 0;
  return {
    push(chunk) {
      let offset = 0;
      while (offset < chunk.length) {
        target ??= pool.take();
        const count = Math.min(chunk.length - offset, frameBytes - filled);
        chunk.copy(target, filled, offset, offset + count);
        filled += count;
        offset += count;
        if (filled < frameBytes) return;
        const done = target;
        target = undefined;
        filled = 0;
        onFrame(done);
      }
    },
    reset() {
      filled = 0;
    },
  };
}
