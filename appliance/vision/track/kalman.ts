/**
 * The box Kalman filter of SORT/ByteTrack: state (cx, cy, a, h) and their velocities, a = w / h,
 * constant velocity, process and measurement noise proportional to the box height (ByteTrack's
 * kalman_filter.py weights 1/20 for position, 1/160 for velocity).
 *
 * ByteTrack carries an 8 × 8 covariance, but its F, H, Q and R act on each coordinate alone and its
 * initial covariance is diagonal, so the covariance never couples coordinates: it is four 2 × 2
 * blocks (position, velocity) throughout. We keep exactly those blocks, three numbers each, which
 * gives the same estimates without matrix products or allocations per step.
 */
import type { Box } from '../types.ts';

const POSITION_WEIGHT = 1 / 20;
const VELOCITY_WEIGHT = 1 / 160;
/** Standard deviations ByteTrack uses for the aspect ratio, which does not scale with height. */
const ASPECT_POSITION_STD = 1e-2;
const ASPECT_VELOCITY_STD = 1e-5;
const ASPECT_MEASUREMENT_STD = 1e-1;

export interface BoxKalman {
  /** cx, cy, a, h, then their velocities per frame. */
  readonly mean: Float64Array;
  /** Per coordinate k: variance of position at 3k, covariance at 3k + 1, variance of velocity at 3k + 2. */
  readonly cov: Float64Array;
}

export function createBoxKalman(box: Box): BoxKalman {
  const state = { mean: new Float64Array(8), cov: new Float64Array(12) };
  initiateBoxKalman(state, box);
  return state;
}

/** Starts the filter at a measured box with zero velocity (ByteTrack's `initiate`). */
export function initiateBoxKalman(state: BoxKalman, box: Box) {
  const { mean, cov } = state;
  const h = box[3] - box[1];
  mean[0] = (box[0] + box[2]) / 2;
  mean[1] = (box[1] + box[3]) / 2;
  mean[2] = (box[2] - box[0]) / h;
  mean[3] = h;
  mean.fill(0, 4);
  for (let k = 0; k < 4; k++) {
    const positionStd = k === 2 ? ASPECT_POSITION_STD : 2 * POSITION_WEIGHT * h;
    const velocityStd = k === 2 ? ASPECT_VELOCITY_STD : 10 * VELOCITY_WEIGHT * h;
    cov[3 * k] = positionStd * positionStd;
    cov[3 * k + 1] = 0;
    cov[3 * k + 2] = velocityStd * velocityStd;
  }
}

/** One frame ahead; `holdHeight` stops the height's velocity, as ByteTrack does for a track it lost. */
export function predictBoxKalman(state: BoxKalman, holdHeight = false) {
  const { mean, cov } = state;
  if (holdHeight) mean[7] = 0;
  const h = mean[3]!;
  for (let k = 0; k < 4; k++) {
    const positionStd = k === 2 ? ASPECT_POSITION_STD : POSITION_WEIGHT * h;
    const velocityStd = k === 2 ? ASPECT_VELOCITY_STD : VELOCITY_WEIGHT * h;
    const pp = cov[3 * k]!;
    const pv = cov[3 * k + 1]!;
    const vv = cov[3 * k + 2]!;
    mean[k]! += mean[k + 4]!;
    cov[3 * k] = pp + 2 * pv + vv + positionStd * positionStd;
    cov[3 * k + 1] = pv + vv;
    cov[3 * k + 2] = vv + velocityStd * velocityStd;
  }
}

/** Corrects the state with a measured box. */
export function updateBoxKalman(state: BoxKalman, box: Box) {
  const { mean, cov } = state;
  const h = mean[3]!;
  const measuredH = box[3] - box[1];
  const measured0 = (box[0] + box[2]) / 2;
  const measured1 = (box[1] + box[3]) / 2;
  const measured2 = (box[2] - box[0]) / measuredH;
  for (let k = 0; k < 4; k++) {
    const measurementStd = k === 2 ? ASPECT_MEASUREMENT_STD : POSITION_WEIGHT * h;
    const z = k === 0 ? measured0 : k === 1 ? measured1 : k === 2 ? measured2 : measuredH;
    const pp = cov[3 * k]!;
    const pv = cov[3 * k + 1]!;
    const vv = cov[3 * k + 2]!;
    const s = pp + measurementStd * measurementStd;
    const gainPosition = pp / s;
    const gainVelocity = pv / s;
    const innovation = z - mean[k]!;
    mean[k]! += gainPosition * innovation;
    mean[k + 4]! += gainVelocity * innovation;
    cov[3 * k] = pp - gainPosition * pp;
    cov[3 * k + 1] = pv - gainPosition * pv;
    cov[3 * k + 2] = vv - gainVelocity * pv;
  }
}

/** Writes the state's box as `[x1, y1, x2, y2]` into `out`. */
export function boxOfKalman(state: BoxKalman, out: [number, number, number, number]) {
  const { mean } = state;
  const h = mean[3]!;
  const w = mean[2]! * h;
  out[0] = mean[0]! - w / 2;
  out[1] = mean[1]! - h / 2;
  out[2] = mean[0]! + w / 2;
  out[3] = mean[1]! + h / 2;
  return out;
}
