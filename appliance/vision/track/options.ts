import { DRIVE_THRU_DEFAULTS } from '../../../shared/vision/settings.ts';

export interface TrackerOptions {
  /** A detection at or above this confidence is "high": reported, matched first, may start a track (`min_confidence`). */
  highThreshold: number;
  /** Detections below this are ignored; between it and `highThreshold` they only keep tracks alive. */
  lowThreshold: number;
  /** An unmatched high detection starts a track only at or above this confidence. */
  newTrackThreshold: number;
  /** Largest cost (1 − IoU × confidence) of the first pass: high detections against every track, lost ones too. */
  firstMatchThreshold: number;
  /** Largest cost (1 − IoU) of the second pass: low detections against tracks still tracked. */
  secondMatchThreshold: number;
  /** Largest cost (1 − IoU × confidence) of matching a not yet confirmed track to a high detection left over. */
  unconfirmedMatchThreshold: number;
  /** Frames a track may go unmatched and still be found again (`track_timeout_seconds` × fps). */
  trackTimeoutFrames: number;
  /**
   * Frames a lost track is still reported, at its predicted box, after its last match. A detector
   * misses a car now and then for a frame or two; without this, every such miss reads as the car
   * gone for that frame. On the synthetic scenes with 10% misses, 2 frames took MOTA from 0.87 to
   * 0.96; longer coasts cost more at the end of each track than they gain.
   */
  coastFrames: number;
  /** Frames a track must be matched in, one after another, before it is confirmed and reported (`min_track_length`). */
  minTrackLength: number;
  /**
   * Detections whose larger side is under this many pixels are dropped (`vehicle_min_size`), for
   * the classes in `minBoxSizeClasses`. The larger side is taken so that a vehicle cut by the frame's
   * edge, thin but as tall as it should be, is kept; a far-away one is small both ways.
   */
  minBoxSize: number;
  /** The classes `minBoxSize` applies to; every class when undefined. */
  minBoxSizeClasses: readonly number[] | undefined;
  /** The classes tracked; every class when undefined. Tracks and detections match only within a class. */
  classes: readonly number[] | undefined;
}

/** ByteTrack's published thresholds (match 0.8 / 0.5 / 0.7), our confidence default 0.8, a one-second buffer at 15 fps. */
export const defaultTrackerOptions: TrackerOptions = {
  highThreshold: 0.8,
  lowThreshold: 0.1,
  newTrackThreshold: 0.8,
  firstMatchThreshold: 0.8,
  secondMatchThreshold: 0.5,
  unconfirmedMatchThreshold: 0.7,
  trackTimeoutFrames: 15,
  coastFrames: 2,
  minTrackLength: DRIVE_THRU_DEFAULTS.min_track_length,
  minBoxSize: 0,
  minBoxSizeClasses: undefined,
  classes: undefined,
};

/** The camera's and the drive-thru's settings, as the fleet pushes them, with what the tracker is given besides. */
export interface TrackerSettings {
  min_confidence?: number;
  track_timeout_seconds?: number;
  min_track_length?: number;
  vehicle_min_size?: number;
  /** Frames per second the tracker sees (the camera's `inference_fps`). */
  fps: number;
  vehicleClasses: readonly number[];
  classes?: readonly number[];
}

export function trackerOptionsFromSettings(settings: TrackerSettings): Partial<TrackerOptions> {
  const options: Partial<TrackerOptions> = {
    minBoxSizeClasses: settings.vehicleClasses,
    trackTimeoutFrames: Math.max(1, Math.round((settings.track_timeout_seconds ?? 2) * settings.fps)),
  };
  if (settings.min_confidence !== undefined) {
    options.highThreshold = settings.min_confidence;
    options.newTrackThreshold = settings.min_confidence;
  }
  if (settings.min_track_length !== undefined) options.minTrackLength = settings.min_track_length;
  if (settings.vehicle_min_size !== undefined) options.minBoxSize = settings.vehicle_min_size;
  if (settings.classes !== undefined) options.classes = settings.classes;
  return options;
}
