/**
 * ByteTrack (Zhang et al., "ByteTrack: Multi-Object Tracking by Associating Every Detection Box",
 * ECCV 2022), following its BYTETracker.update: high detections are matched to every track first,
 * low ones then keep still-tracked tracks alive, not yet confirmed tracks take what high detections
 * are left, and the rest of those start tracks. Lost tracks are predicted on and can be found again
 * for `trackTimeoutFrames`. Differences: a track is confirmed after `minTrackLength` matched frames
 * (ByteTrack: 2), ids are given at confirmation so the reported ones run without gaps, matching is
 * within a class, a track missed for a frame or two is still reported at its predicted box
 * (`coastFrames`), and ByteTrack's removal of duplicate tracked/lost pairs is left out (it lowered
 * IDF1 slightly on the synthetic crowded scenes).
 */

import { type Detection, iou, type TrackedObject } from '../types.ts';
import { matchWithinCost } from './assignment.ts';
import { type BoxKalman, boxOfKalman, createBoxKalman, predictBoxKalman, updateBoxKalman } from './kalman.ts';
import { defaultTrackerOptions, type TrackerOptions } from './options.ts';

interface Track {
  /** 0 until confirmed. */
  id: number;
  kalman: BoxKalman;
  /** The box the filter holds now: predicted before matching, corrected after. */
  box: [number, number, number, number];
  classId: number;
  className: string;
  confidence: number;
  hits: number;
  lost: boolean;
  lastMatchedFrame: number;
}

export interface TrackerUpdate {
  /**
   * Confirmed tracks matched in this frame, boxes as the filter corrected them, and those missed
   * for at most `coastFrames` frames, at their predicted boxes with their last confidence.
   */
  tracks: TrackedObject[];
  /** Ids of confirmed tracks that ended in this frame; never seen again. */
  removed: number[];
}

export interface Tracker {
  update(detections: readonly Detection[], frameIndex: number): TrackerUpdate;
}

export function createTracker(overrides: Partial<TrackerOptions> = {}): Tracker {
  const options = { ...defaultTrackerOptions, ...overrides };
  const lowThreshold = Math.min(options.lowThreshold, options.highThreshold);
  const classes = options.classes ? new Set(options.classes) : undefined;
  const sizedClasses = options.minBoxSizeClasses ? new Set(options.minBoxSizeClasses) : undefined;
  let confirmed: Track[] = [];
  let unconfirmed: Track[] = [];
  let nextId = 1;
  let lastFrame: number | undefined;
  let costs = new Float64Array(256);

  const accepts = (detection: Detection) => {
    if (detection.confidence < lowThreshold) return false;
    if (!(detection.box[2] > detection.box[0] && detection.box[3] > detection.box[1])) return false;
    if (classes && !classes.has(detection.classId)) return false;
    if (options.minBoxSize <= 0 || (sizedClasses && !sizedClasses.has(detection.classId))) return true;
    const [x1, y1, x2, y2] = detection.box;
    return Math.max(x2 - x1, y2 - y1) >= options.minBoxSize;
  };

  /** Pairs tracks with detections by 1 − IoU (times confidence when `fuse`), within a class. */
  function associate(tracks: Track[], detections: Detection[], maxCost: number, fuse: boolean) {
    const cells = tracks.length * detections.length;
    if (costs.length < cells) costs = new Float64Array(cells * 2);
    for (let t = 0; t < tracks.length; t++) {
      const track = tracks[t]!;
      for (let d = 0; d < detections.length; d++) {
        const detection = detections[d]!;
        const overlap = detection.classId === track.classId ? iou(track.box, detection.box) : 0;
        const similarity = fuse ? overlap * detection.confidence : overlap;
        costs[t * detections.length + d] = overlap > 0 ? 1 - similarity : Number.POSITIVE_INFINITY;
      }
    }
    return matchWithinCost(costs, tracks.length, detections.length, maxCost);
  }

  function apply(track: Track, detection: Detection, frameIndex: number) {
    updateBoxKalman(track.kalman, detection.box);
    boxOfKalman(track.kalman, track.box);
    track.confidence = detection.confidence;
    track.className = detection.className;
    track.hits += 1;
    track.lost = false;
    track.lastMatchedFrame = frameIndex;
    if (track.id === 0 && track.hits >= options.minTrackLength) track.id = nextId++;
  }

  function predict(frameIndex: number) {
    const gap = lastFrame === undefined ? 1 : frameIndex - lastFrame;
    const steps = Math.min(Math.max(1, gap), options.trackTimeoutFrames + 1);
    lastFrame = frameIndex;
    const advance = (track: Track) => {
      for (let s = 0; s < steps; s++) predictBoxKalman(track.kalman, track.lost);
      boxOfKalman(track.kalman, track.box);
    };
    confirmed.forEach(advance);
    unconfirmed.forEach(advance);
  }

  function start(detection: Detection, frameIndex: number): Track {
    const kalman = createBoxKalman(detection.box);
    const track: Track = {
      id: 0,
      kalman,
      box: boxOfKalman(kalman, [0, 0, 0, 0]),
      classId: detection.classId,
      className: detection.className,
      confidence: detection.confidence,
      hits: 1,
      lost: false,
      lastMatchedFrame: frameIndex,
    };
    if (options.minTrackLength <= 1) track.id = nextId++;
    return track;
  }

  /** ByteTrack's first two passes; answers the high detections left over. */
  function matchConfirmed(high: Detection[], low: Detection[], frameIndex: number): Detection[] {
    const first = associate(confirmed, high, options.firstMatchThreshold, true);
    const stillTracked: Track[] = [];
    first.rowToCol.forEach((d, t) => {
      const track = confirmed[t]!;
      if (d >= 0) apply(track, high[d]!, frameIndex);
      else if (!track.lost) stillTracked.push(track);
    });
    const second = associate(stillTracked, low, options.secondMatchThreshold, false);
    second.rowToCol.forEach((d, t) => {
      const track = stillTracked[t]!;
      if (d >= 0) apply(track, low[d]!, frameIndex);
      else track.lost = true;
    });
    return high.filter((_, d) => first.colToRow[d] === -1);
  }

  /** Tracks not yet confirmed take what high detections are left; the rest start tracks. */
  function matchUnconfirmed(leftHigh: Detection[], frameIndex: number) {
    const third = associate(unconfirmed, leftHigh, options.unconfirmedMatchThreshold, true);
    const nextUnconfirmed: Track[] = [];
    const keep = (track: Track) => (track.id === 0 ? nextUnconfirmed : confirmed).push(track);
    third.rowToCol.forEach((d, t) => {
      if (d < 0) return; // A track not yet confirmed ends at its first miss, as in ByteTrack.
      apply(unconfirmed[t]!, leftHigh[d]!, frameIndex);
      keep(unconfirmed[t]!);
    });
    leftHigh.forEach((detection, d) => {
      if (third.colToRow[d] === -1 && detection.confidence >= options.newTrackThreshold) {
        keep(start(detection, frameIndex));
      }
    });
    unconfirmed = nextUnconfirmed;
  }

  /** Ends tracks lost for longer than the timeout; answers the ones to report. */
  function retire(frameIndex: number): TrackerUpdate {
    const removed: number[] = [];
    const tracks: TrackedObject[] = [];
    confirmed = confirmed.filter((track) => {
      const missed = frameIndex - track.lastMatchedFrame;
      if (missed > options.trackTimeoutFrames) {
        removed.push(track.id);
        return false;
      }
      if (missed <= options.coastFrames) tracks.push(reported(track));
      return true;
    });
    return { tracks, removed };
  }

  /**
   * `frameIndex` counts frames at the rate `trackTimeoutFrames` was reckoned in; when it skips
   * (frames dropped), tracks are predicted over the gap.
   */
  function update(detections: readonly Detection[], frameIndex: number): TrackerUpdate {
    predict(frameIndex);
    const high: Detection[] = [];
    const low: Detection[] = [];
    for (const detection of detections) {
      if (!accepts(detection)) continue;
      (detection.confidence >= options.highThreshold ? high : low).push(detection);
    }
    matchUnconfirmed(matchConfirmed(high, low, frameIndex), frameIndex);
    return retire(frameIndex);
  }

  return { update };
}

function reported(track: Track): TrackedObject {
  const [x1, y1, x2, y2] = track.box;
  return {
    trackId: track.id,
    box: [x1, y1, x2, y2],
    classId: track.classId,
    className: track.className,
    confidence: track.confidence,
  };
}
