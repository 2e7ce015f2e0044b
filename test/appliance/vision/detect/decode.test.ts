import { describe, expect, it } from 'vitest';
import { letterboxInto, letterboxOf, toFrame } from '../../../../appliance/vision/detect/letterbox.ts';
import { decodeYolo, nonMaxSuppression } from '../../../../appliance/vision/detect/yolo.ts';
import type { Box, Detection } from '../../../../appliance/vision/types.ts';

describe('letterbox', () => {
  it('fits a 16:9 frame in the square, centred, and maps boxes back exactly', () => {
    const transform = letterboxOf(1280, 720, 640);
    expect(transform).toMatchObject({ scaledWidth: 640, scaledHeight: 360, padX: 0, padY: 140 });
    expect(toFrame([0, 140, 640, 500], transform)).toEqual([0, 0, 1280, 720]);
    expect(toFrame([320, 320, 330, 330], transform)).toEqual([640, 360, 660, 380]);
    // Outside the picture is clipped to it.
    expect(toFrame([-10, 0, 700, 650], transform)).toEqual([0, 0, 1280, 720]);
  });

  it('writes planar RGB in 0..1 with grey padding, the picture where the transform says', () => {
    const width = 8;
    const height = 4;
    const rgb = Buffer.alloc(width * height * 3);
    // Left half red, right half blue.
    for (let y = 0; y < height; y += 1)
      for (let x = 0; x < width; x += 1) rgb[(y * width + x) * 3 + (x < width / 2 ? 0 : 2)] = 255;
    const size = 16;
    const out = new Float32Array(2 * 3 * size * size).fill(-1);
    const transform = letterboxInto(rgb, width, height, size, out, 3 * size * size);
    expect(out[0]).toBe(-1); // the first image of the batch is left alone
    const plane = size * size;
    const at = (channel: number, x: number, y: number) => out[3 * plane + channel * plane + y * size + x]!;
    expect(transform).toMatchObject({ padX: 0, padY: 4, scaledWidth: 16, scaledHeight: 8 });
    expect(at(0, 0, 0)).toBeCloseTo(114 / 255); // padding
    expect([at(0, 2, 6), at(1, 2, 6), at(2, 2, 6)]).toEqual([1, 0, 0]);
    expect([at(0, 13, 6), at(1, 13, 6), at(2, 13, 6)]).toEqual([0, 0, 1]);
    expect(at(2, 13, 12)).toBeCloseTo(114 / 255); // padding below
  });
});

describe('YOLO output', () => {
  const classes = ['vehicle', 'person'];
  /** A [1, 4 + classes, anchors] tensor from rows of (cx, cy, w, h, scores...). */
  function tensor(rows: number[][]) {
    const channels = 4 + classes.length;
    const data = new Float32Array(channels * rows.length);
    rows.forEach((row, anchor) => {
      row.forEach((value, channel) => {
        data[channel * rows.length + anchor] = value;
      });
    });
    return { data, dims: [1, channels, rows.length] };
  }

  it('decodes boxes and best classes above the floor, suppresses overlaps per class, maps to the frame', () => {
    const transform = letterboxOf(1280, 720, 640);
    const { data, dims } = tensor([
      [100, 240, 40, 40, 0.9, 0.1], // vehicle
      [102, 242, 40, 40, 0.85, 0.0], // the same vehicle again: suppressed
      [102, 242, 40, 40, 0.0, 0.6], // a person at the same place: another class, kept
      [400, 300, 20, 60, 0.05, 0.09], // below the floor
      [500, 400, 30, 30, 0.2, 0.0], // weak but above the floor
    ]);
    const found = decodeYolo(data, dims, 0, transform, { classes, floor: 0.1, iouThreshold: 0.5 });
    expect(found.map((d) => [d.className, d.confidence])).toEqual([
      ['vehicle', expect.closeTo(0.9, 5)],
      ['person', expect.closeTo(0.6, 5)],
      ['vehicle', expect.closeTo(0.2, 5)],
    ]);
    expect(found[0]!.box).toEqual([160, 160, 240, 240]);
  });

  it('refuses an output whose class count is not the manifest’s', () => {
    const { data, dims } = tensor([[1, 1, 1, 1, 1, 1]]);
    expect(() =>
      decodeYolo(data, dims, 0, letterboxOf(10, 10, 10), { classes: ['a'], floor: 0, iouThreshold: 0.5 }),
    ).toThrow(/2 classes, its manifest 1/);
  });

  it('drops a weaker box lying mostly inside a stronger one of its class (a part found again), not a neighbour', () => {
    const car = (box: Box, confidence: number): Detection => ({
      box,
      classId: 0,
      className: 'vehicle',
      confidence,
    });
    const kept = nonMaxSuppression(
      [
        car([502, 217, 568, 273], 0.99),
        car([495, 209, 554, 257], 0.85), // IoU 0.47 with the first, 73% inside it
        car([459, 186, 511, 236], 0.96), // the car ahead, overlapping a corner
      ],
      0.5,
    );
    expect(kept.map((d) => d.confidence)).toEqual([0.99, 0.96]);
  });

  it('keeps at most the strongest boxes asked for', () => {
    const many: Detection[] = Array.from({ length: 10 }, (_, i) => ({
      box: [i * 100, 0, i * 100 + 50, 50],
      classId: 0,
      className: 'vehicle',
      confidence: i / 10,
    }));
    expect(nonMaxSuppression(many, 0.5, 3).map((d) => d.confidence)).toEqual([0.9, 0.8, 0.7]);
  });
});
