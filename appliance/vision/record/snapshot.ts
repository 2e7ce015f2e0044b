/**
 * A snapshot: one frame as JPEG with its boxes and labels drawn (an SVG overlay composited by
 * sharp), filed by UTC day and camera under the snapshots directory so retention can drop whole
 * days: `<dir>/<YYYY-MM-DD>/<cameraId>/<timestamp>-<kind>.jpg`.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type Sharp from 'sharp';
import { frameBytes, type PixelFormat, rgbOf } from '../pixels.ts';
import type { Box } from '../types.ts';
import { insideDir } from './paths.ts';

export type SnapshotKind = 'detection' | 'verification' | 'calibration';

export interface SnapshotBox {
  box: Box;
  label: string;
  /** A CSS colour (`#rrggbb`, `#rgb` or a name); by default one from a palette picked by label. */
  color?: string | undefined;
}

/** A frame's pixels: packed RGB unless `format` says otherwise (capture's frames are yuv420p). */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  format?: PixelFormat | undefined;
}

/** sharp's input: RGB, in a buffer of its own (the frame's may be refilled while sharp works). */
function pixelsOf(frame: RawImage) {
  const { width, height, format = 'rgb24' } = frame;
  if (frame.data.length < frameBytes(format, width, height))
    throw new Error(`frame smaller than ${width}x${height} ${format}`);
  return rgbOf(frame);
}

export interface EncodeOptions {
  /** JPEG quality 1..100. */
  quality?: number | undefined;
}

export interface WriteSnapshotOptions extends EncodeOptions {
  frame: RawImage;
  boxes: readonly SnapshotBox[];
  /** The snapshots directory. */
  dir: string;
  /** The file's path relative to `dir`, as `snapshotName` builds it. */
  name: string;
}

export interface WrittenSnapshot {
  file: string;
  bytes: number;
}

export const DEFAULT_QUALITY = 80;
const PALETTE = ['#ff3b30', '#34c759', '#0a84ff', '#ffcc00', '#af52de', '#ff9500', '#00c7be', '#ff2d55'];
const COLOR = /^(#[0-9a-f]{3}|#[0-9a-f]{6}|[a-z]{3,20})$/i;
const SAFE_ID = /[^A-Za-z0-9_-]/g;

/** The day folder a moment belongs to (UTC, so it never moves with the appliance's time zone). */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** `<YYYY-MM-DD>/<cameraId>/<timestamp>-<kind>.jpg`; the timestamp has no colons, for any file system. */
export function snapshotName(cameraId: string, at: Date, kind: SnapshotKind): string {
  const camera = cameraId.replace(SAFE_ID, '_') || 'camera';
  const stamp = at.toISOString().replace(/:/g, '-').replace('.', '-');
  return `${dayOf(at)}/${camera}/${stamp}-${kind}.jpg`;
}

export function colorFor(label: string, color?: string): string {
  if (color !== undefined && COLOR.test(color)) return color;
  let hash = 0;
  for (const char of label) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length]!;
}

const escapeXml = (text: string) =>
  text.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!,
  );

/** Boxes as stroked rectangles, each label on a filled tab above its box (inside it at the top edge). */
export function overlaySvg(width: number, height: number, boxes: readonly SnapshotBox[]): string {
  const stroke = Math.max(2, Math.round(Math.min(width, height) / 180));
  const fontSize = Math.max(10, Math.round(height / 40));
  const tabHeight = Math.round(fontSize * 1.3);
  const shapes = boxes.map(({ box, label, color }) => {
    const fill = colorFor(label, color);
    const [x1, y1] = [clamp(box[0], width), clamp(box[1], height)];
    const [x2, y2] = [clamp(box[2], width), clamp(box[3], height)];
    const text = escapeXml(label);
    const tabWidth = Math.round(label.length * fontSize * 0.6 + stroke * 2);
    const tabY = y1 - tabHeight >= 0 ? y1 - tabHeight : y1;
    return (
      `<rect x="${x1}" y="${y1}" width="${x2 - x1}" height="${y2 - y1}" fill="none" stroke="${fill}" stroke-width="${stroke}"/>` +
      `<rect x="${x1 - stroke / 2}" y="${tabY}" width="${tabWidth}" height="${tabHeight}" fill="${fill}"/>` +
      `<text x="${x1 + stroke}" y="${tabY + fontSize}" font-family="DejaVu Sans, sans-serif" font-size="${fontSize}" fill="#fff">${text}</text>`
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${shapes.join('')}</svg>`;
}

/**
 * sharp (libvips and its thread pool, some 20 MB resident) loads with the first picture a camera
 * makes rather than with the appliance: a store without cameras never needs it (npm run bench -- footprint).
 */
let sharpLoaded: Promise<typeof Sharp> | undefined;
const loadSharp = () => {
  sharpLoaded ??= import('sharp').then((module) => module.default);
  return sharpLoaded;
};

const clamp = (value: number, max: number) => Math.round(Math.min(max, Math.max(0, value)));

/**
 * The frame's pixels are copied first: capture hands out pooled buffers that are refilled once the
 * pipeline is done with a frame, while sharp reads its input later on the thread pool.
 */
export async function encodeSnapshot(
  frame: RawImage,
  boxes: readonly SnapshotBox[],
  options: EncodeOptions = {},
): Promise<Buffer> {
  const { width, height } = frame;
  const pixels = pixelsOf(frame);
  const sharp = await loadSharp();
  let image = sharp(pixels, { raw: { width, height, channels: 3 } });
  if (boxes.length > 0) image = image.composite([{ input: Buffer.from(overlaySvg(width, height, boxes)) }]);
  return image.jpeg({ quality: options.quality ?? DEFAULT_QUALITY, mozjpeg: false }).toBuffer();
}

/**
 * A frame as it is, scaled to `width` (the height keeping its aspect), for a screen showing the
 * camera live. The pixels are copied before this returns, as for a snapshot; the copy is sharp's
 * input only, gone once the JPEG is made.
 */
export async function encodeStill(
  frame: RawImage,
  width: number,
  options: EncodeOptions = {},
): Promise<Buffer> {
  const pixels = pixelsOf(frame);
  const height = Math.max(1, Math.round((frame.height * width) / frame.width));
  const sharp = await loadSharp();
  return sharp(pixels, { raw: { width: frame.width, height: frame.height, channels: 3 } })
    .resize(width, height, { fit: 'fill' })
    .jpeg({ quality: options.quality ?? DEFAULT_QUALITY, mozjpeg: false })
    .toBuffer();
}

/**
 * Writes by rename from a `.part` file, so a reader (or the retention sweep) never sees half a JPEG.
 * A sweep may remove the emptied camera folder between our mkdir and write: then once more.
 */
export async function writeJpeg(dir: string, name: string, jpeg: Buffer): Promise<WrittenSnapshot> {
  const file = insideDir(dir, name);
  try {
    await writeAtomically(file, jpeg);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await writeAtomically(file, jpeg);
  }
  return { file, bytes: jpeg.length };
}

async function writeAtomically(file: string, data: Buffer) {
  await mkdir(dirname(file), { recursive: true });
  const part = `${file}.${randomBytes(4).toString('hex')}.part`;
  try {
    await writeFile(part, data);
    await rename(part, file);
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  }
}

export async function writeSnapshot(options: WriteSnapshotOptions): Promise<WrittenSnapshot> {
  const jpeg = await encodeSnapshot(options.frame, options.boxes, options);
  return writeJpeg(options.dir, options.name, jpeg);
}
