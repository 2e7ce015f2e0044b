import type { PixelFormat } from '../pixels.ts';
import type { Box } from '../types.ts';
import { createGreySampler, type GreySampler } from './grey.ts';
import { changedRegions } from './regions.ts';

export interface MotionGateOptions {
  /** The grey image compared; 64x36 unless set (16:9 cells of 20 px at 720p). */
  width?: number;
  height?: number;
  /** Samples a cell along each axis; 4 unless set. */
  samples?: number;
  /** A cell has changed when its grey level is this far from the background; 12 unless set. */
  pixelThreshold?: number;
  /** The scene moves when at least this fraction of the cells changed; 0.002 (5 cells of 2,304) unless set. */
  minChangedFraction?: number;
  /**
   * How fast the background follows the picture (0 to 1 a frame); 0.1 unless set. Slow changes
   * (daylight) and objects that stop are absorbed after some tens of frames.
   */
  backgroundRate?: number;
  /** Also answer where the scene moved (boxes in source pixels); off unless set. */
  regions?: boolean;
  /** Changed cells a region needs to be reported; 2 unless set. */
  minRegionCells?: number;
  /**
   * A frame no cell of which is further than this from the previous frame's is still: the scene
   * stopped changing, and the background becomes this frame at once; 2 unless set (below sensor
   * noise on a cell's average, so a live camera rarely holds this still).
   */
  stillThreshold?: number;
}

export interface MotionResult {
  moving: boolean;
  /** Fraction of cells that changed (0 to 1). */
  score: number;
  regions?: Box[];
}

interface FrameLike {
  width: number;
  height: number;
  data: Uint8Array;
  /** rgb24 unless set. */
  format?: PixelFormat | undefined;
}

/** Whether no cell moved further than `threshold` since the previous frame. */
function stillSince(grey: Uint8Array, previous: Uint8Array, threshold: number) {
  for (let i = 0; i < grey.length; i += 1) {
    const difference = grey[i]! - previous[i]!;
    if (difference > threshold || difference < -threshold) return false;
  }
  return true;
}

/**
 * A cheap frame-difference gate: each frame shrunk to a small grey image and compared with a
 * running-average background. The first frame only seeds the background and answers not moving;
 * the inference policy runs detection on a camera's first frame anyway. A scene that changed and
 * then holds still (a tray set down, a still picture) is motion once, not for the tens of frames
 * the running average takes to follow it.
 */
export function createMotionGate(options: MotionGateOptions = {}) {
  const width = options.width ?? 64;
  const height = options.height ?? 36;
  const cells = width * height;
  const threshold = options.pixelThreshold ?? 12;
  const minChanged = Math.max(1, Math.ceil((options.minChangedFraction ?? 0.002) * cells));
  const rate = options.backgroundRate ?? 0.1;
  const still = options.stillThreshold ?? 2;
  const grey = new Uint8Array(cells);
  const previous = new Uint8Array(cells);
  const background = new Float32Array(cells);
  const mask = new Uint8Array(cells);
  const scratch = { labels: new Int32Array(cells), stack: new Int32Array(cells) };
  let sampler: GreySampler | undefined;
  let source = { width: 0, height: 0, format: 'rgb24' as PixelFormat };
  let seeded = false;

  /** A new source size or format needs new sample offsets and a new background. */
  function samplerFor(frame: FrameLike): GreySampler {
    const { width: w, height: h, format = 'rgb24' } = frame;
    if (sampler && w === source.width && h === source.height && format === source.format) return sampler;
    source = { width: w, height: h, format };
    seeded = false;
    sampler = createGreySampler({
      sourceWidth: frame.width,
      sourceHeight: frame.height,
      width,
      height,
      samples: options.samples ?? 4,
      format,
    });
    return sampler;
  }

  return {
    check(frame: FrameLike): MotionResult {
      samplerFor(frame).sample(frame.data, grey);
      if (!seeded || stillSince(grey, previous, still)) {
        background.set(grey);
        previous.set(grey);
        seeded = true;
        return { moving: false, score: 0 };
      }
      previous.set(grey);
      let changed = 0;
      for (let i = 0; i < cells; i += 1) {
        const level = grey[i]!;
        const difference = level - background[i]!;
        const moved = difference > threshold || difference < -threshold;
        mask[i] = moved ? 1 : 0;
        if (moved) changed += 1;
        background[i] = background[i]! + rate * difference;
      }
      const moving = changed >= minChanged;
      const result: MotionResult = { moving, score: changed / cells };
      if (moving && options.regions) {
        result.regions = changedRegions(
          mask,
          {
            width,
            height,
            cellWidth: frame.width / width,
            cellHeight: frame.height / height,
            minCells: options.minRegionCells ?? 2,
          },
          scratch,
        );
      }
      return result;
    },
    /** Forgets the background (the camera moved, or came back after being offline). */
    reset() {
      seeded = false;
    },
  };
}

export type MotionGate = ReturnType<typeof createMotionGate>;
