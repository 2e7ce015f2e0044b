/**
 * SVG to packed RGB with sharp, then lighting (a per-channel gain and lift) and sensor noise applied
 * in one pass over the pixels. Noise comes from a seeded table read at a per-frame offset, so any
 * frame can be rendered alone and still come out the same.
 */
import sharp from 'sharp';
import { createRng } from './rng.ts';

export const LIGHTINGS = {
  day: { gain: [1, 1, 1], lift: [0, 0, 0] },
  overcast: { gain: [0.86, 0.89, 0.94], lift: [8, 8, 10] },
  dusk: { gain: [0.78, 0.6, 0.52], lift: [12, 6, 14] },
  evening: { gain: [0.48, 0.5, 0.62], lift: [2, 3, 12] },
} as const;
export type Lighting = keyof typeof LIGHTINGS;
export const LIGHTING_NAMES = Object.keys(LIGHTINGS) as Lighting[];

export interface Finish {
  lighting: Lighting;
  /** Standard deviation of the added noise, in 8-bit levels. */
  noise: number;
}

export interface NoiseTable {
  values: Int8Array;
}

export function createNoiseTable(seed: number, width: number, height: number, sigma: number): NoiseTable {
  const rng = createRng(seed, 'noise');
  const values = new Int8Array(width * height * 3 + 4099);
  for (let i = 0; i < values.length; i++) {
    values[i] = Math.max(-127, Math.min(127, Math.round(rng.normal() * sigma)));
  }
  return { values };
}

export async function rasterise(svg: string): Promise<Buffer> {
  return sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
}

/** Lighting and noise in place; `frameIndex` picks the noise offset. */
export function applyFinish(
  rgb: Buffer,
  finish: Finish,
  noise: NoiseTable | undefined,
  frameIndex: number,
): Buffer {
  const { gain, lift } = LIGHTINGS[finish.lighting];
  const table = noise?.values;
  const offset = table ? ((frameIndex * 7919) % 4096) + 1 : 0;
  // A clamped view does the rounding and the 0..255 clamp on assignment.
  const px = new Uint8ClampedArray(rgb.buffer, rgb.byteOffset, rgb.length);
  for (let i = 0; i < px.length; i += 3) {
    for (let c = 0; c < 3; c++) {
      px[i + c] = px[i + c]! * gain[c]! + lift[c]! + (table ? table[i + c + offset]! : 0);
    }
  }
  return rgb;
}
