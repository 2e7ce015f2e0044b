/**
 * Shrinks a frame to a small grey image by averaging an even grid of samples in each cell
 * (a box filter on a sparse grid). Reading every pixel of a 720p frame costs milliseconds in
 * JavaScript; a few samples a cell cost tens of microseconds and still average sensor noise away.
 * The byte offsets of the samples are worked out once per frame size and format; a yuv420p
 * sample is converted to RGB exactly as ffmpeg would (../pixels.ts), so both formats give one grey.
 */
import { CLAMP, CLAMP_OFFSET, type PixelFormat, YUV_TO_RGB, yuvLayout } from '../pixels.ts';

export interface GreySampler {
  readonly width: number;
  readonly height: number;
  /** Writes `width * height` grey levels (0 to 255) to `out`. */
  sample(frame: Uint8Array, out: Uint8Array): void;
}

export interface GreySamplerOptions {
  sourceWidth: number;
  sourceHeight: number;
  width: number;
  height: number;
  /** Samples a cell along each axis (so `samples²` a cell), at most the cell's size. */
  samples: number;
  /** rgb24 unless set. */
  format?: PixelFormat;
}

/** The pixels sampled along one axis, cell after cell. */
function samplePositions(sourceSize: number, cells: number, samples: number): Int32Array {
  const cell = sourceSize / cells;
  const perCell = Math.max(1, Math.min(samples, Math.floor(cell)));
  const offsets = new Int32Array(cells * perCell);
  for (let c = 0; c < cells; c += 1) {
    for (let s = 0; s < perCell; s += 1) {
      const at = Math.min(sourceSize - 1, Math.floor(c * cell + ((s + 0.5) * cell) / perCell));
      offsets[c * perCell + s] = at;
    }
  }
  return offsets;
}

/** Each sample's pixel, cell after cell, as (row, column) pairs. */
function samplePixels(options: GreySamplerOptions) {
  const { width, height } = options;
  const columns = samplePositions(options.sourceWidth, width, options.samples);
  const rows = samplePositions(options.sourceHeight, height, options.samples);
  const perColumn = columns.length / width;
  const perRow = rows.length / height;
  const pixels = new Int32Array(width * height * perColumn * perRow * 2);
  let n = 0;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      for (let sy = 0; sy < perRow; sy += 1) {
        for (let sx = 0; sx < perColumn; sx += 1) {
          pixels[n++] = rows[y * perRow + sy]!;
          pixels[n++] = columns[x * perColumn + sx]!;
        }
      }
    }
  }
  return { pixels, perCell: perColumn * perRow };
}

export function createGreySampler(options: GreySamplerOptions): GreySampler {
  const { width, height } = options;
  const { pixels, perCell } = samplePixels(options);
  // BT.601 luma weights scaled by 256, and the division by the sample count, in one multiply.
  const scale = 1 / (256 * perCell);
  const sample =
    options.format === 'yuv420p'
      ? yuvSampler(pixels, perCell, options.sourceWidth, options.sourceHeight)
      : rgbSampler(pixels, perCell, options.sourceWidth);
  return {
    width,
    height,
    sample(source, out) {
      const cells = width * height;
      for (let cell = 0; cell < cells; cell += 1) out[cell] = sample(source, cell) * scale;
    },
  };
}

/**
 * The hot loops read a table of byte offsets and the frame (the frame reads, scattered over
 * megabytes, are the real cost): a cell's luma sum, weights times 256.
 */
function rgbSampler(pixels: Int32Array, perCell: number, sourceWidth: number) {
  const offsets = new Int32Array(pixels.length / 2);
  for (let i = 0; i < offsets.length; i += 1)
    offsets[i] = (pixels[2 * i]! * sourceWidth + pixels[2 * i + 1]!) * 3;
  return (rgb: Uint8Array, cell: number) => {
    let sum = 0;
    for (let k = cell * perCell, end = k + perCell; k < end; k += 1) {
      const i = offsets[k]!;
      sum += 77 * rgb[i]! + 150 * rgb[i + 1]! + 29 * rgb[i + 2]!;
    }
    return sum;
  };
}

/**
 * A chroma pair's part of a luma sum (77 R + 150 G + 29 B with R = Y' + vr and so on: the weights
 * add up to 256, so the sum is 256 Y' plus this) and the Y' levels for which none of R, G, B needs
 * clamping; outside them the sample is converted in full.
 */
function chromaTables() {
  const { vr, ug, vg, ub } = YUV_TO_RGB;
  const term = new Int32Array(65536);
  const range = new Int32Array(65536);
  for (let u = 0; u < 256; u += 1) {
    for (let v = 0; v < 256; v += 1) {
      const [r, g, b] = [vr[v]!, ug[u]! + vg[v]!, ub[u]!];
      term[(u << 8) | v] = 77 * r + 150 * g + 29 * b;
      // Lowest level unclamped in the low 16 bits, highest in the high ones.
      range[(u << 8) | v] = -Math.min(r, g, b, 0) | ((255 - Math.max(r, g, b, 0)) << 16);
    }
  }
  return { term, range };
}

let chroma: ReturnType<typeof chromaTables> | undefined;

function yuvSampler(pixels: Int32Array, perCell: number, sourceWidth: number, sourceHeight: number) {
  const { u, v, chromaWidth } = yuvLayout(sourceWidth, sourceHeight);
  const lumaAt = new Int32Array(pixels.length / 2);
  const chromaAt = new Int32Array(pixels.length / 2);
  for (let i = 0; i < lumaAt.length; i += 1) {
    const row = pixels[2 * i]!;
    const column = pixels[2 * i + 1]!;
    lumaAt[i] = row * sourceWidth + column;
    chromaAt[i] = (row >> 1) * chromaWidth + (column >> 1);
  }
  chroma ??= chromaTables();
  const { term, range } = chroma;
  const { y: ty, vr, ug, vg, ub } = YUV_TO_RGB;
  return (yuv: Uint8Array, cell: number) => {
    let sum = 0;
    for (let k = cell * perCell, end = k + perCell; k < end; k += 1) {
      const level = ty[yuv[lumaAt[k]!]!]!;
      const c = chromaAt[k]!;
      const cu = yuv[u + c]!;
      const cv = yuv[v + c]!;
      const pair = (cu << 8) | cv;
      const fits = range[pair]!;
      if (level >= (fits & 0xffff) && level <= fits >> 16) {
        sum += 256 * level + term[pair]!;
        continue;
      }
      const at = level + CLAMP_OFFSET;
      sum += 77 * CLAMP[at + vr[cv]!]! + 150 * CLAMP[at + ug[cu]! + vg[cv]!]! + 29 * CLAMP[at + ub[cu]!]!;
    }
    return sum;
  };
}
