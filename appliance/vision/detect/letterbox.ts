/**
 * A frame as a YOLO model wants it: scaled to fit the model's square input with its aspect ratio
 * kept, centred on grey (114, as the YOLO exports are trained), as planar float RGB in 0..1 (NCHW),
 * written into a caller's tensor slice so a batch is one allocation. The transform goes with it,
 * to map boxes back to the frame's pixels.
 */
import type { Box } from '../types.ts';

export interface Letterbox {
  /** Model pixels per frame pixel. */
  scale: number;
  /** Where the scaled frame starts in the input, whole pixels. */
  padX: number;
  padY: number;
  /** The scaled frame's size in the input. */
  scaledWidth: number;
  scaledHeight: number;
  /** The frame's size, to clip boxes mapped back. */
  width: number;
  height: number;
}

const PAD = 114 / 255;

/** The transform for a frame of this size into a square input of `size`. */
export function letterboxOf(width: number, height: number, size: number): Letterbox {
  const scale = Math.min(size / width, size / height);
  const scaledWidth = Math.min(size, Math.round(width * scale));
  const scaledHeight = Math.min(size, Math.round(height * scale));
  return {
    scale,
    padX: Math.floor((size - scaledWidth) / 2),
    padY: Math.floor((size - scaledHeight) / 2),
    scaledWidth,
    scaledHeight,
    width,
    height,
  };
}

/**
 * Writes `rgb` (packed RGB24, width × height) into `out` at `offset` as 3 planes of size × size.
 * Nearest-neighbour sampling with precomputed source columns: a detector at 640 px is indifferent
 * to the interpolation, and this costs a few milliseconds a frame in plain JavaScript.
 */
export function letterboxInto(
  rgb: Buffer | Uint8Array,
  width: number,
  height: number,
  size: number,
  out: Float32Array,
  offset = 0,
): Letterbox {
  const box = letterboxOf(width, height, size);
  const { padX, padY, scaledWidth, scaledHeight } = box;
  const plane = size * size;
  out.fill(PAD, offset, offset + 3 * plane);
  const columns = new Int32Array(scaledWidth);
  for (let x = 0; x < scaledWidth; x += 1)
    columns[x] = Math.min(width - 1, Math.floor(((x + 0.5) * width) / scaledWidth)) * 3;
  for (let y = 0; y < scaledHeight; y += 1) {
    const sourceRow = Math.min(height - 1, Math.floor(((y + 0.5) * height) / scaledHeight)) * width * 3;
    let target = offset + (padY + y) * size + padX;
    for (let x = 0; x < scaledWidth; x += 1, target += 1) {
      const source = sourceRow + columns[x]!;
      out[target] = rgb[source]! / 255;
      out[target + plane] = rgb[source + 1]! / 255;
      out[target + 2 * plane] = rgb[source + 2]! / 255;
    }
  }
  return box;
}

/** A box in model input pixels as a box in the frame's pixels, clipped to the frame. */
export function toFrame(box: Box, transform: Letterbox): Box {
  const { padX, padY, scaledWidth, scaledHeight, width, height } = transform;
  const sx = width / scaledWidth;
  const sy = height / scaledHeight;
  const clip = (value: number, max: number) => Math.min(max, Math.max(0, value));
  return [
    clip((box[0] - padX) * sx, width),
    clip((box[1] - padY) * sy, height),
    clip((box[2] - padX) * sx, width),
    clip((box[3] - padY) * sy, height),
  ];
}
