/**
 * A frame as a YOLO model wants it: scaled to fit the model's square input with its aspect ratio
 * kept, centred on grey (114, as the YOLO exports are trained), as planar float RGB in 0..1 (NCHW),
 * written into a caller's tensor slice so a batch is one allocation. The transform goes with it,
 * to map boxes back to the frame's pixels.
 */
import { CLAMP, CLAMP_OFFSET, type PixelFormat, YUV_TO_RGB, yuvLayout } from '../pixels.ts';
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

/** A byte as the model reads it, 0..1; stored as float32 exactly as `byte / 255` would be. */
const UNIT = Float32Array.from({ length: 256 }, (_, i) => i / 255);
/** The same for a sum of YUV_TO_RGB entries, clamped to a byte first. */
const UNIT_CLAMPED = Float32Array.from({ length: 2 * CLAMP_OFFSET }, (_, i) => UNIT[CLAMP[i]!]!);

/** The grey border only: the scaled frame overwrites the rest. */
function fillPadding(out: Float32Array, offset: number, size: number, box: Letterbox) {
  const { padX, padY, scaledWidth, scaledHeight } = box;
  for (let plane = offset; plane < offset + 3 * size * size; plane += size * size) {
    out.fill(PAD, plane, plane + padY * size);
    out.fill(PAD, plane + (padY + scaledHeight) * size, plane + size * size);
    if (scaledWidth === size) continue;
    for (let y = padY; y < padY + scaledHeight; y += 1) {
      out.fill(PAD, plane + y * size, plane + y * size + padX);
      out.fill(PAD, plane + y * size + padX + scaledWidth, plane + (y + 1) * size);
    }
  }
}

/** Which source column and row each input pixel takes (nearest neighbour). */
function nearest(source: number, scaled: number) {
  const at = new Int32Array(scaled);
  for (let i = 0; i < scaled; i += 1) at[i] = Math.min(source - 1, Math.floor(((i + 0.5) * source) / scaled));
  return at;
}

/**
 * Writes the frame (packed RGB24, or yuv420p: ../pixels.ts) into `out` at `offset` as 3 planes of
 * size × size. Nearest-neighbour sampling with precomputed source columns: a detector at 640 px is
 * indifferent to the interpolation, and only the pixels sampled are read (and converted).
 */
export function letterboxInto(
  frame: Buffer | Uint8Array,
  width: number,
  height: number,
  size: number,
  out: Float32Array,
  offset = 0,
  format: PixelFormat = 'rgb24',
): Letterbox {
  const box = letterboxOf(width, height, size);
  fillPadding(out, offset, size, box);
  const columns = nearest(width, box.scaledWidth);
  const rows = nearest(height, box.scaledHeight);
  const first = offset + box.padY * size + box.padX;
  if (format === 'yuv420p') writeYuv(frame, width, height, columns, rows, out, first, size);
  else writeRgb(frame, width, columns, rows, out, first, size);
  return box;
}

function writeRgb(
  rgb: Uint8Array,
  width: number,
  columns: Int32Array,
  rows: Int32Array,
  out: Float32Array,
  first: number,
  size: number,
) {
  const plane = size * size;
  for (let y = 0; y < rows.length; y += 1) {
    const sourceRow = rows[y]! * width * 3;
    let target = first + y * size;
    for (let x = 0; x < columns.length; x += 1, target += 1) {
      const source = sourceRow + columns[x]! * 3;
      out[target] = UNIT[rgb[source]!]!;
      out[target + plane] = UNIT[rgb[source + 1]!]!;
      out[target + 2 * plane] = UNIT[rgb[source + 2]!]!;
    }
  }
}

function writeYuv(
  yuv: Uint8Array,
  width: number,
  height: number,
  columns: Int32Array,
  rows: Int32Array,
  out: Float32Array,
  first: number,
  size: number,
) {
  const plane = size * size;
  const { u, v, chromaWidth } = yuvLayout(width, height);
  const { y: ty, vr, ug, vg, ub } = YUV_TO_RGB;
  for (let y = 0; y < rows.length; y += 1) {
    const lumaRow = rows[y]! * width;
    const chromaRow = (rows[y]! >> 1) * chromaWidth;
    let target = first + y * size;
    for (let x = 0; x < columns.length; x += 1, target += 1) {
      const column = columns[x]!;
      const level = ty[yuv[lumaRow + column]!]! + CLAMP_OFFSET;
      const c = chromaRow + (column >> 1);
      const cu = yuv[u + c]!;
      const cv = yuv[v + c]!;
      out[target] = UNIT_CLAMPED[level + vr[cv]!]!;
      out[target + plane] = UNIT_CLAMPED[level + ug[cu]! + vg[cv]!]!;
      out[target + 2 * plane] = UNIT_CLAMPED[level + ub[cu]!]!;
    }
  }
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
