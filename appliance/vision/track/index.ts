/**
 * Multi-object tracking for a camera: one tracker per camera turns each frame's detections into
 * tracks with lasting ids (ByteTrack with a box Kalman filter). Zones are judged elsewhere, by a
 * track box's bottom centre (`anchorOf` in appliance/vision/types.ts).
 */
export {
  defaultTrackerOptions,
  type TrackerOptions,
  type TrackerSettings,
  trackerOptionsFromSettings,
} from './options.ts';
export { createTracker, type Tracker, type TrackerUpdate } from './tracker.ts';
