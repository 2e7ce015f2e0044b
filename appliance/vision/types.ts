/**
 * What the camera pipeline's stages hand each other, and what the synthetic world writes as
 * ground truth: boxes in the source frame's pixels, `[x1, y1, x2, y2]` (x1 < x2, y1 < y2).
 */
import type { PixelFormat } from './pixels.ts';

export type Box = readonly [x1: number, y1: number, x2: number, y2: number];

/** One decoded frame: packed RGB (3 bytes a pixel, row after row) unless `format` says yuv420p. */
export interface Frame {
  cameraId: string;
  /** Counts the frames read from the source since capture started, dropped ones included. */
  seq: number;
  /** Wall-clock time the frame was read (ms since the epoch). */
  capturedAt: number;
  width: number;
  height: number;
  data: Buffer;
  /** rgb24 unless set; capture delivers yuv420p (../pixels.ts). */
  format?: PixelFormat;
}

/** A detector's answer for one object. */
export interface Detection {
  box: Box;
  classId: number;
  className: string;
  confidence: number;
}

/** A tracked object in one frame. */
export interface TrackedObject {
  trackId: number;
  box: Box;
  classId: number;
  className: string;
  confidence: number;
}

/** The point a zone is judged by: the box's bottom centre (where a car or person meets the ground). */
export const anchorOf = (box: Box): readonly [x: number, y: number] => [(box[0] + box[2]) / 2, box[3]];

export const area = (box: Box) => Math.max(0, box[2] - box[0]) * Math.max(0, box[3] - box[1]);

/** Intersection over union of two boxes, 0 when they do not overlap. */
export function iou(a: Box, b: Box): number {
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (area(a) + area(b) - inter);
}
