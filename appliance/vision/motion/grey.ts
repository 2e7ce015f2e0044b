/**
 * Shrinks an RGB frame to a small grey image by averaging an even grid of samples in each cell
 * (a box filter on a sparse grid). Reading every pixel of a 720p frame costs milliseconds in
 * JavaScript; a few samples a cell cost tens of microseconds and still average sensor noise away.
 * The byte offsets of the samples are worked out once per frame size.
 */
export interface GreySampler {
  readonly width: number;
  readonly height: number;
  /** Writes `width * height` grey levels (0 to 255) to `out`. */
  sample(rgb: Uint8Array, out: Uint8Array): void;
}

export interface GreySamplerOptions {
  sourceWidth: number;
  sourceHeight: number;
  width: number;
  height: number;
  /** Samples a cell along each axis (so `samples²` a cell), at most the cell's size. */
  samples: number;
}

function sampleOffsets(sourceSize: number, cells: number, samples: number, stride: number): Int32Array {
  const cell = sourceSize / cells;
  const perCell = Math.max(1, Math.min(samples, Math.floor(cell)));
  const offsets = new Int32Array(cells * perCell);
  for (let c = 0; c < cells; c += 1) {
    for (let s = 0; s < perCell; s += 1) {
      const at = Math.min(sourceSize - 1, Math.floor(c * cell + ((s + 0.5) * cell) / perCell));
      offsets[c * perCell + s] = at * stride;
    }
  }
  return offsets;
}

export function createGreySampler(options: GreySamplerOptions): GreySampler {
  const { width, height } = options;
  const columns = sampleOffsets(options.sourceWidth, width, options.samples, 3);
  const rows = sampleOffsets(options.sourceHeight, height, options.samples, options.sourceWidth * 3);
  const perColumn = columns.length / width;
  const perRow = rows.length / height;
  const perCell = perColumn * perRow;
  // Every sample's byte offset, cell after cell: the hot loop is then one read of this table and
  // three of the frame per sample (the frame reads, scattered over megabytes, are the real cost).
  const offsets = new Int32Array(width * height * perCell);
  let n = 0;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      for (let sy = 0; sy < perRow; sy += 1) {
        for (let sx = 0; sx < perColumn; sx += 1)
          offsets[n++] = rows[y * perRow + sy]! + columns[x * perColumn + sx]!;
      }
    }
  }
  // BT.601 luma weights scaled by 256, and the division by the sample count, in one multiply.
  const scale = 1 / (256 * perCell);
  const cells = width * height;
  return {
    width,
    height,
    sample(rgb, out) {
      let k = 0;
      for (let cell = 0; cell < cells; cell += 1) {
        let sum = 0;
        for (let s = 0; s < perCell; s += 1) {
          const i = offsets[k++]!;
          sum += 77 * rgb[i]! + 150 * rgb[i + 1]! + 29 * rgb[i + 2]!;
        }
        out[cell] = sum * scale;
      }
    },
  };
}
