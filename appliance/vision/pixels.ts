/**
 * The frames' pixel layouts. Capture asks ffmpeg for yuv420p, what its decoders produce: no
 * conversion in ffmpeg and half the bytes of RGB through the FIFO. The stages that want colour
 * convert only the pixels they read (the letterbox, the motion gate's samples), and a still to
 * keep converts the whole frame once, where it was copied anyway.
 *
 * The conversion is ffmpeg's own (swscale's BT.601 limited-range coefficients in 13-bit fixed
 * point, as its x86 converter computes them), so every pixel reads exactly as ffmpeg's rgb24
 * output did: the model's inputs and the motion gate's decisions did not change with the format.
 */

/** Packed RGB, 3 bytes a pixel; or planar Y, then U and V at half the width and height. */
export type PixelFormat = 'rgb24' | 'yuv420p';

/** Where a yuv420p frame's planes start, and the chroma planes' row length. */
export interface YuvLayout {
  u: number;
  v: number;
  chromaWidth: number;
}

export function yuvLayout(width: number, height: number): YuvLayout {
  const chromaWidth = Math.ceil(width / 2);
  const u = width * height;
  return { u, v: u + chromaWidth * Math.ceil(height / 2), chromaWidth };
}

export function frameBytes(format: PixelFormat, width: number, height: number) {
  if (format === 'rgb24') return width * height * 3;
  const { v, chromaWidth } = yuvLayout(width, height);
  return v + chromaWidth * Math.ceil(height / 2);
}

/** swscale's pmulhw: the high half of a 16 x 16-bit product, rounded down. */
const fixed = (value: number, coefficient: number) => (value * coefficient) >> 16;

function table(term: (level: number) => number) {
  const out = new Int16Array(256);
  for (let level = 0; level < 256; level += 1) out[level] = term(level);
  return out;
}

/** Each component's part of R, G and B by its level: a pixel is three sums of these, clamped. */
export const YUV_TO_RGB = {
  y: table((y) => fixed(y * 8 - 128, 9539)),
  vr: table((v) => fixed(v * 8 - 1024, 13075)),
  ug: table((u) => fixed(u * 8 - 1024, -3209)),
  vg: table((v) => fixed(v * 8 - 1024, -6660)),
  ub: table((u) => fixed(u * 8 - 1024, 16525)),
};

/** A sum of table entries lies within ±CLAMP_OFFSET; `CLAMP[sum + CLAMP_OFFSET]` is it clamped to a byte. */
export const CLAMP_OFFSET = 512;
export const CLAMP = Uint8ClampedArray.from({ length: 2 * CLAMP_OFFSET }, (_, i) => i - CLAMP_OFFSET);

/** A new packed-RGB copy of a frame, whatever its format (a still to encode, kept past the frame's loan). */
export function rgbOf(frame: { data: Uint8Array; width: number; height: number; format?: PixelFormat }) {
  const { data, width, height } = frame;
  if ((frame.format ?? 'rgb24') === 'rgb24') return Buffer.from(data.subarray(0, width * height * 3));
  const out = Buffer.allocUnsafe(width * height * 3);
  // A clamped view clamps each sum to a byte as it is stored, as swscale's packuswb does.
  const clamped = new Uint8ClampedArray(out.buffer, out.byteOffset, out.length);
  const { u, v, chromaWidth } = yuvLayout(width, height);
  const { y: ty, vr, ug, vg, ub } = YUV_TO_RGB;
  let at = 0;
  for (let row = 0; row < height; row += 1) {
    const chromaRow = (row >> 1) * chromaWidth;
    for (let x = 0, luma = row * width; x < width; x += 1, luma += 1) {
      const c = chromaRow + (x >> 1);
      const level = ty[data[luma]!]!;
      const cu = data[u + c]!;
      const cv = data[v + c]!;
      clamped[at++] = level + vr[cv]!;
      clamped[at++] = level + ug[cu]! + vg[cv]!;
      clamped[at++] = level + ub[cu]!;
    }
  }
  return out;
}
