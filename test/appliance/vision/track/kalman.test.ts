import { describe, expect, it } from 'vitest';
import {
  boxOfKalman,
  createBoxKalman,
  predictBoxKalman,
  updateBoxKalman,
} from '../../../../appliance/vision/track/kalman.ts';
import type { Box } from '../../../../appliance/vision/types.ts';
import { boxAt, seededRandom } from './synthetic.ts';

type Matrix = number[][];
const zeros = (r: number, c: number): Matrix => Array.from({ length: r }, () => new Array<number>(c).fill(0));
const multiply = (a: Matrix, b: Matrix): Matrix =>
  a.map((row) => b[0]!.map((_, j) => row.reduce((sum, v, k) => sum + v * b[k]![j]!, 0)));
const transpose = (a: Matrix): Matrix => a[0]!.map((_, j) => a.map((row) => row[j]!));
const add = (a: Matrix, b: Matrix): Matrix => a.map((row, i) => row.map((v, j) => v + b[i]![j]!));
const diagonal = (values: number[]): Matrix => values.map((v, i) => values.map((_, j) => (i === j ? v : 0)));
function invert(a: Matrix): Matrix {
  const n = a.length;
  const m = a.map((row, i) => [...row, ...diagonal(new Array<number>(n).fill(1))[i]!]);
  for (let c = 0; c < n; c++) {
    const pivot = m[c]![c]!;
    m[c] = m[c]!.map((v) => v / pivot);
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]!;
      m[r] = m[r]!.map((v, j) => v - f * m[c]![j]!);
    }
  }
  return m.map((row) => row.slice(n));
}

/** ByteTrack's kalman_filter.py as written, with full 8 × 8 matrices. */
function referenceFilter(box: Box) {
  const wp = 1 / 20;
  const wv = 1 / 160;
  const h0 = box[3] - box[1];
  let mean: Matrix = [
    [(box[0] + box[2]) / 2],
    [(box[1] + box[3]) / 2],
    [(box[2] - box[0]) / h0],
    [h0],
    [0],
    [0],
    [0],
    [0],
  ];
  let cov = diagonal(
    [2 * wp * h0, 2 * wp * h0, 1e-2, 2 * wp * h0, 10 * wv * h0, 10 * wv * h0, 1e-5, 10 * wv * h0].map(
      (s) => s * s,
    ),
  );
  const F = diagonal(new Array<number>(8).fill(1));
  for (let i = 0; i < 4; i++) F[i]![i + 4] = 1;
  const H = zeros(4, 8);
  for (let i = 0; i < 4; i++) H[i]![i] = 1;
  return {
    predict() {
      const h = mean[3]![0]!;
      const Q = diagonal([wp * h, wp * h, 1e-2, wp * h, wv * h, wv * h, 1e-5, wv * h].map((s) => s * s));
      mean = multiply(F, mean);
      cov = add(multiply(multiply(F, cov), transpose(F)), Q);
    },
    update(measured: Box) {
      const h = mean[3]![0]!;
      const R = diagonal([wp * h, wp * h, 1e-1, wp * h].map((s) => s * s));
      const mh = measured[3] - measured[1];
      const z = [
        [(measured[0] + measured[2]) / 2],
        [(measured[1] + measured[3]) / 2],
        [(measured[2] - measured[0]) / mh],
        [mh],
      ];
      const S = add(multiply(multiply(H, cov), transpose(H)), R);
      const K = multiply(multiply(cov, transpose(H)), invert(S));
      const innovation = z.map((row, i) => [row[0]! - multiply(H, mean)[i]![0]!]);
      mean = add(mean, multiply(K, innovation));
      cov = add(
        cov,
        multiply(multiply(K, S), transpose(K)).map((row) => row.map((v) => -v)),
      );
    },
    mean: () => mean.map((row) => row[0]!),
    cov: () => cov,
  };
}

const out = (): [number, number, number, number] => [0, 0, 0, 0];

describe('box Kalman filter', () => {
  it('starts at the measured box with no velocity', () => {
    const kalman = createBoxKalman(boxAt(100, 50, 120, 80));
    expect(boxOfKalman(kalman, out())).toEqual([100, 50, 220, 130]);
    expect([...kalman.mean.slice(4)]).toEqual([0, 0, 0, 0]);
    expect(kalman.mean[2]).toBeCloseTo(1.5, 12);
  });

  it('learns a constant velocity and predicts the box ahead within a pixel', () => {
    const kalman = createBoxKalman(boxAt(0, 100));
    for (let f = 1; f <= 30; f++) {
      predictBoxKalman(kalman);
      updateBoxKalman(kalman, boxAt(6 * f, 100 - 2 * f));
    }
    expect(kalman.mean[4]).toBeCloseTo(6, 1);
    expect(kalman.mean[5]).toBeCloseTo(-2, 1);
    for (let f = 31; f <= 35; f++) predictBoxKalman(kalman);
    const predicted = boxOfKalman(kalman, out());
    for (const [k, v] of boxAt(6 * 35, 100 - 2 * 35).entries()) {
      expect(Math.abs(predicted[k]! - v)).toBeLessThan(1);
    }
  });

  it('smooths noisy measurements of a moving box', () => {
    const random = seededRandom(3);
    const kalman = createBoxKalman(boxAt(0, 0, 100, 100));
    let measuredError = 0;
    let filteredError = 0;
    for (let f = 1; f <= 200; f++) {
      const truth = boxAt(4 * f, 2 * f, 100, 100);
      const measured = truth.map((v) => v + (random() - 0.5) * 12) as unknown as Box;
      predictBoxKalman(kalman);
      updateBoxKalman(kalman, measured);
      if (f <= 20) continue;
      const filtered = boxOfKalman(kalman, out());
      measuredError += Math.abs(measured[0] - truth[0]);
      filteredError += Math.abs(filtered[0] - truth[0]);
    }
    expect(filteredError).toBeLessThan(measuredError * 0.8);
  });

  it('gives the estimates of ByteTrack’s full 8 × 8 filter', () => {
    const random = seededRandom(11);
    const start = boxAt(300, 200, 150, 90);
    const kalman = createBoxKalman(start);
    const reference = referenceFilter(start);
    for (let f = 1; f <= 60; f++) {
      predictBoxKalman(kalman);
      reference.predict();
      if (random() < 0.2) continue;
      const measured = boxAt(
        300 + 5 * f + random() * 8,
        200 - f + random() * 8,
        150 + random() * 10,
        90 + f / 3,
      );
      updateBoxKalman(kalman, measured);
      reference.update(measured);
    }
    for (const [i, v] of reference.mean().entries()) expect(kalman.mean[i]).toBeCloseTo(v, 6);
    const cov = reference.cov();
    for (let k = 0; k < 4; k++) {
      expect(kalman.cov[3 * k]).toBeCloseTo(cov[k]![k]!, 6);
      expect(kalman.cov[3 * k + 1]).toBeCloseTo(cov[k]![k + 4]!, 6);
      expect(kalman.cov[3 * k + 2]).toBeCloseTo(cov[k + 4]![k + 4]!, 6);
      expect(cov[k]![(k + 1) % 4]).toBeCloseTo(0, 9);
    }
  });

  it('grows its uncertainty while predicting and shrinks it when measured', () => {
    const kalman = createBoxKalman(boxAt(0, 0));
    const before = kalman.cov[0]!;
    predictBoxKalman(kalman);
    const predicted = kalman.cov[0]!;
    updateBoxKalman(kalman, boxAt(0, 0));
    expect(predicted).toBeGreaterThan(before);
    expect(kalman.cov[0]!).toBeLessThan(predicted);
  });

  it('stops the height changing while it holds a lost track', () => {
    const kalman = createBoxKalman(boxAt(0, 0, 100, 100));
    for (let f = 1; f <= 20; f++) {
      predictBoxKalman(kalman);
      updateBoxKalman(kalman, boxAt(0, 0, 100 + 2 * f, 100 + 2 * f));
    }
    const height = kalman.mean[3]!;
    predictBoxKalman(kalman, true);
    expect(kalman.mean[3]).toBe(height);
  });
});
