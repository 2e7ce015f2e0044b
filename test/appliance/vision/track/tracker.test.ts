import { describe, expect, it } from 'vitest';
import {
  createTracker,
  type TrackerOptions,
  trackerOptionsFromSettings,
} from '../../../../appliance/vision/track/index.ts';
import type { Detection, TrackedObject } from '../../../../appliance/vision/types.ts';
import { boxAt, CAR, detection } from './synthetic.ts';

const PERSON = 0;

/** Runs a tracker over per-frame detections; answers each frame's reported tracks and removed ids. */
function run(frames: Detection[][], options: Partial<TrackerOptions> = {}) {
  const tracker = createTracker({ minTrackLength: 1, coastFrames: 0, ...options });
  return frames.map((detections, frameIndex) => tracker.update(detections, frameIndex));
}

const idsOf = (tracks: TrackedObject[]) => tracks.map((track) => track.trackId);

/** A car crossing the frame to the right at `speed` pixels a frame. */
const carAt = (frame: number, speed = 6, y = 200, confidence = 0.9) =>
  detection(boxAt(40 + speed * frame, y), confidence);

describe('ByteTrack tracker', () => {
  it('follows one car with one id and reports the filtered box', () => {
    const results = run(Array.from({ length: 30 }, (_, f) => [carAt(f)]));
    expect(results.every((r) => r.tracks.length === 1 && r.tracks[0]!.trackId === 1)).toBe(true);
    const last = results[29]!.tracks[0]!;
    expect(last).toMatchObject({ classId: CAR, className: 'car', confidence: 0.9 });
    expect(Math.abs(last.box[0] - (40 + 6 * 29))).toBeLessThan(1);
  });

  it('keeps the id through an occlusion shorter than the timeout, reporting nothing meanwhile', () => {
    const frames = Array.from({ length: 40 }, (_, f) => (f >= 15 && f < 25 ? [] : [carAt(f)]));
    const results = run(frames, { trackTimeoutFrames: 15 });
    expect(results.slice(15, 25).every((r) => r.tracks.length === 0 && r.removed.length === 0)).toBe(true);
    expect(results.slice(25).map((r) => idsOf(r.tracks))).toEqual(new Array(15).fill([1]));
  });

  it('reports a missed track at its predicted box for coastFrames frames', () => {
    const frames = Array.from({ length: 20 }, (_, f) => (f >= 10 && f < 15 ? [] : [carAt(f)]));
    const results = run(frames, { coastFrames: 2 });
    expect(results.map((r) => r.tracks.length)).toEqual([
      ...new Array(12).fill(1),
      0,
      0,
      0,
      ...new Array(5).fill(1),
    ]);
    expect(Math.abs(results[11]!.tracks[0]!.box[0] - (40 + 6 * 11))).toBeLessThan(2);
    expect(results[19]!.tracks[0]!.trackId).toBe(1);
  });

  it('keeps a track alive through low-confidence detections, which never start one', () => {
    const frames = Array.from({ length: 30 }, (_, f) => [carAt(f, 6, 200, f >= 10 && f < 25 ? 0.4 : 0.9)]);
    frames.forEach((detections, f) => {
      detections.push(detection(boxAt(600, 500 + f), 0.5)); // only ever weak: no track
    });
    const results = run(frames, { trackTimeoutFrames: 3 });
    expect(results.map((r) => idsOf(r.tracks))).toEqual(new Array(30).fill([1]));
    expect(results[12]!.tracks[0]!.confidence).toBe(0.4);
  });

  it('loses a track when only weak detections remain at the first miss, as ByteTrack does', () => {
    // The second pass is for tracks still tracked: once lost, a track is found again only by a high detection.
    const frames = Array.from({ length: 20 }, (_, f) =>
      f === 5 ? [] : [carAt(f, 6, 200, f > 5 && f < 10 ? 0.4 : 0.9)],
    );
    const results = run(frames, { trackTimeoutFrames: 10 });
    expect(results.slice(6, 10).every((r) => r.tracks.length === 0)).toBe(true);
    expect(idsOf(results[10]!.tracks)).toEqual([1]);
  });

  it('keeps the ids of two cars whose paths cross, by their velocities', () => {
    const frames = Array.from({ length: 60 }, (_, f) => [
      detection(boxAt(100 + 8 * f, 300)),
      detection(boxAt(600 - 8 * f, 310)),
    ]);
    const results = run(frames);
    for (const [f, result] of results.entries()) {
      const right = result.tracks.find((t) => t.trackId === 1)!;
      const left = result.tracks.find((t) => t.trackId === 2)!;
      expect(Math.abs(right.box[0] - (100 + 8 * f)), `frame ${f}`).toBeLessThan(4);
      expect(Math.abs(left.box[0] - (600 - 8 * f)), `frame ${f}`).toBeLessThan(4);
    }
  });

  it('ends a track after the timeout and gives a returning car a new id', () => {
    const frames = Array.from({ length: 30 }, (_, f) => (f >= 10 && f < 20 ? [] : [carAt(f)]));
    const results = run(frames, { trackTimeoutFrames: 5 });
    const removedAt = results.findIndex((r) => r.removed.length > 0);
    expect(removedAt).toBe(15); // last matched in frame 9, more than 5 frames before
    expect(results[removedAt]!.removed).toEqual([1]);
    expect(results.slice(20).every((r) => r.tracks[0]!.trackId === 2)).toBe(true);
  });

  it('reports a track only from its min_track_length-th frame, so flickers are never reported', () => {
    const frames = Array.from({ length: 12 }, (_, f) => {
      const detections = [carAt(f)];
      if (f === 3 || f === 4) detections.push(detection(boxAt(700, 400), 0.95));
      return detections;
    });
    const results = run(frames, { minTrackLength: 3 });
    expect(results.map((r) => idsOf(r.tracks))).toEqual([[], [], ...new Array(10).fill([1])]);
    expect(results.flatMap((r) => r.removed)).toEqual([]);
  });

  it('drops vehicles whose larger side is under vehicle_min_size, only for the classes it applies to', () => {
    const frames = Array.from({ length: 5 }, (_, f) => [
      detection(boxAt(10 + f, 10, 30, 20)), // a small car: dropped
      detection(boxAt(200 + f, 10, 50, 20)), // thin but 50 wide: kept
      detection(boxAt(400 + f, 10, 30, 20), 0.9, PERSON), // small, but not a vehicle
    ]);
    const results = run(frames, { minBoxSize: 40, minBoxSizeClasses: [CAR] });
    const tracked = results[4]!.tracks.map((t) => [t.classId, Math.round(t.box[0])]);
    expect(tracked).toEqual([
      [CAR, 204],
      [PERSON, 404],
    ]);
  });

  it('matches only within a class and tracks only the classes asked for', () => {
    const frames = Array.from({ length: 10 }, (_, f) => [
      detection(boxAt(100 + 2 * f, 100), 0.9, f < 5 ? CAR : PERSON),
    ]);
    expect(run(frames).map((r) => idsOf(r.tracks))).toEqual([
      ...new Array(5).fill([1]),
      ...new Array(5).fill([2]),
    ]);
    expect(run(frames, { classes: [PERSON] }).map((r) => r.tracks.length)).toEqual([
      0, 0, 0, 0, 0, 1, 1, 1, 1, 1,
    ]);
  });

  it('numbers tracks upwards and never reuses an id', () => {
    const frames = Array.from({ length: 60 }, (_, f) =>
      f % 15 < 8 ? [carAt(f % 15, 6, 100 + 50 * Math.floor(f / 15))] : [],
    );
    const seen = run(frames, { trackTimeoutFrames: 3 }).flatMap((r) => idsOf(r.tracks));
    expect([...new Set(seen)]).toEqual([1, 2, 3, 4]);
  });
});

describe('tracker options from settings', () => {
  it('takes min_confidence, the timeout in frames at the inference rate, min_track_length and vehicle_min_size', () => {
    const options = trackerOptionsFromSettings({
      min_confidence: 0.6,
      track_timeout_seconds: 2.5,
      min_track_length: 4,
      vehicle_min_size: 32,
      fps: 15,
      vehicleClasses: [2, 5, 7],
    });
    expect(options).toEqual({
      highThreshold: 0.6,
      newTrackThreshold: 0.6,
      trackTimeoutFrames: 38,
      minTrackLength: 4,
      minBoxSize: 32,
      minBoxSizeClasses: [2, 5, 7],
    });
  });

  it('leaves unset settings to the defaults, a two-second timeout among them', () => {
    expect(trackerOptionsFromSettings({ fps: 10, vehicleClasses: [2] })).toEqual({
      trackTimeoutFrames: 20,
      minBoxSizeClasses: [2],
    });
  });

  it('predicts tracks over skipped frame numbers', () => {
    // Five frames at 30 pixels a frame: a box 120 wide predicted only one frame on would not overlap.
    const frames = [0, 1, 2, 3, 4, 5, 6, 7, 12, 13];
    const tracker = createTracker({ minTrackLength: 1 });
    const ids = frames.map((f) => idsOf(tracker.update([carAt(f, 30)], f).tracks));
    expect(ids).toEqual(new Array(frames.length).fill([1]));
  });
});
