/**
 * What a screen showing a camera live needs of its pipeline, without the pipeline holding pixels:
 * the boxes as of each of the last frames (by their `seq`), and the next frame itself, lent to the
 * caller's function while the pipeline still has it, so the caller copies what it keeps (the
 * buffer goes back to the capture's pool right after).
 */
import type { Detection, Frame, TrackedObject } from '../types.ts';

/** The model's last look: the frame it ran on, what it reported, and the tracks then. */
export interface Seen {
  seq: number;
  capturedAt: number;
  detections: readonly Detection[];
  tracks: readonly TrackedObject[];
}

/** A frame, and what the model saw as of it (on this frame, or the last one it ran on). */
export interface FrameView {
  seq: number;
  capturedAt: number;
  width: number;
  height: number;
  seen: Seen | undefined;
}

interface Tap {
  use(frame: Frame, view: FrameView): void;
  fail(error: Error): void;
}

export function createLiveView(cameraId: string, capacity = 32) {
  const views: FrameView[] = [];
  let taps: Tap[] = [];

  return {
    /** Called with each frame the pipeline takes, while it holds the frame's buffer. */
    show(frame: Frame, seen: Seen | undefined) {
      const view: FrameView = {
        seq: frame.seq,
        capturedAt: frame.capturedAt,
        width: frame.width,
        height: frame.height,
        seen,
      };
      views.push(view);
      if (views.length > capacity) views.shift();
      if (taps.length === 0) return;
      const waiting = taps;
      taps = [];
      for (const tap of waiting) tap.use(frame, view);
    },
    /** The frame `seq` if still among the last ones, else undefined; the newest without `seq`. */
    view(seq?: number): FrameView | undefined {
      if (seq === undefined) return views.at(-1);
      return views.find((view) => view.seq === seq);
    },
    /**
     * `use` run on the next frame while its buffer is lent (synchronously: copy what you keep).
     * Rejects when no frame comes in `timeoutMs`, or the pipeline stops.
     */
    next<T>(timeoutMs: number, use: (frame: Frame, view: FrameView) => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const tap: Tap = {
          use(frame, view) {
            clearTimeout(timer);
            try {
              resolve(use(frame, view));
            } catch (error) {
              reject(error);
            }
          },
          fail(error) {
            clearTimeout(timer);
            reject(error);
          },
        };
        const timer = setTimeout(() => {
          taps = taps.filter((t) => t !== tap);
          tap.fail(new Error(`camera ${cameraId} gave no frame in ${timeoutMs} ms`));
        }, timeoutMs);
        taps.push(tap);
      });
    },
    /** The pipeline stopped: waiting callers are answered now, and old frames are forgotten. */
    close(reason: string) {
      const waiting = taps;
      taps = [];
      views.length = 0;
      for (const tap of waiting) tap.fail(new Error(`camera ${cameraId} ${reason}`));
    },
  };
}

export type LiveView = ReturnType<typeof createLiveView>;
