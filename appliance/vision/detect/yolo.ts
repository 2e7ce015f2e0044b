/**
 * The output of a YOLOv8/YOLO11 detection export, `[batch, 4 + classes, anchors]`: for each anchor
 * a box (centre x, centre y, width, height in input pixels) and one score per class, no
 * objectness. Decoded per image into boxes above a floor, then non-maximum suppression per class.
 */
import { type Box, type Detection, iou } from '../types.ts';
import { type Letterbox, toFrame } from './letterbox.ts';

export interface DecodeOptions {
  /** Class names by index (the model's manifest). */
  classes: readonly string[];
  /** Boxes scoring below this are dropped before suppression (the tracker's floor). */
  floor: number;
  /** Overlap above which the weaker box of a class is suppressed. */
  iouThreshold: number;
  /** At most this many boxes an image, strongest first. */
  maxDetections?: number;
}

/**
 * A weaker box this much inside a stronger one of its class is a part of the same object (the
 * front of a car, found again), whatever their IoU: two cars queueing overlap far less.
 */
export const CONTAINED = 0.7;

/** The share of `inner`'s area that lies inside `outer`. */
function containedIn(inner: Box, outer: Box) {
  const w = Math.min(inner[2], outer[2]) - Math.max(inner[0], outer[0]);
  const h = Math.min(inner[3], outer[3]) - Math.max(inner[1], outer[1]);
  if (w <= 0 || h <= 0) return 0;
  return (w * h) / ((inner[2] - inner[0]) * (inner[3] - inner[1]));
}

/**
 * Strongest first; a box goes when it overlaps a kept box of its class by more than the IoU
 * threshold, or lies mostly inside one (CONTAINED).
 */
export function nonMaxSuppression(detections: Detection[], iouThreshold: number, max = 300): Detection[] {
  const sorted = [...detections].sort((a, b) => b.confidence - a.confidence);
  const kept: Detection[] = [];
  for (const candidate of sorted) {
    if (kept.length >= max) break;
    const duplicate = kept.some(
      (k) =>
        k.classId === candidate.classId &&
        (iou(k.box, candidate.box) > iouThreshold || containedIn(candidate.box, k.box) >= CONTAINED),
    );
    if (!duplicate) kept.push(candidate);
  }
  return kept;
}

/**
 * Detections of image `index` of a batch output (`data` is the whole tensor, row-major), in the
 * frame's pixels through its letterbox transform.
 */
export function decodeYolo(
  data: Float32Array,
  dims: readonly number[],
  index: number,
  transform: Letterbox,
  options: DecodeOptions,
): Detection[] {
  const [, channels, anchors] = dims as [number, number, number];
  const classCount = channels - 4;
  if (classCount !== options.classes.length)
    throw new Error(
      `model output has ${classCount} classes, its manifest ${options.classes.length}: they must agree`,
    );
  const base = index * channels * anchors;
  const candidates: Detection[] = [];
  for (let a = 0; a < anchors; a += 1) {
    let best = -1;
    let score = options.floor;
    for (let c = 0; c < classCount; c += 1) {
      const value = data[base + (4 + c) * anchors + a]!;
      if (value >= score) {
        score = value;
        best = c;
      }
    }
    if (best < 0) continue;
    const cx = data[base + a]!;
    const cy = data[base + anchors + a]!;
    const w = data[base + 2 * anchors + a]!;
    const h = data[base + 3 * anchors + a]!;
    const inInput: Box = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2];
    const box = toFrame(inInput, transform);
    if (box[2] <= box[0] || box[3] <= box[1]) continue;
    candidates.push({ box, classId: best, className: options.classes[best]!, confidence: score });
  }
  return nonMaxSuppression(candidates, options.iouThreshold, options.maxDetections);
}
