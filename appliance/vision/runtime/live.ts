/**
 * A camera shown live: a frame as JPEG, and the model's boxes for that same frame, normalised to
 * the frame so a screen draws them over the picture at whatever size it shows it.
 */

import type { FrameView } from '../pipeline/live-view.ts';
import { type Box, iou, type TrackedObject } from '../types.ts';

export interface LiveDetection {
  class: string;
  confidence: number;
  /** [x1, y1, x2, y2] as shares of the frame's width and height. */
  box: [number, number, number, number];
  /** The tracker's id of the object (as in the lane status's cars), null when not tracked. */
  track_id: number | null;
}

export interface LiveFrame {
  camera_id: string;
  seq: number;
  frame_at: string;
  /** The frame the model last ran on, at or before this one (a still scene is not looked at again). */
  detections_at: string | null;
  width: number;
  height: number;
  detections: LiveDetection[];
}

/** A detection is the track whose box overlaps it at least this much (same class). */
const TRACK_MATCH_IOU = 0.3;

const share = (value: number, size: number) => Math.round(Math.min(1, Math.max(0, value / size)) * 1e4) / 1e4;

function trackOf(box: Box, classId: number, tracks: readonly TrackedObject[]): number | null {
  let best: { id: number; overlap: number } | undefined;
  for (const track of tracks) {
    if (track.classId !== classId) continue;
    const overlap = iou(box, track.box);
    if (overlap >= TRACK_MATCH_IOU && overlap > (best?.overlap ?? 0)) best = { id: track.trackId, overlap };
  }
  return best?.id ?? null;
}

export function liveFrameOf(cameraId: string, view: FrameView): LiveFrame {
  const { width, height, seen } = view;
  return {
    camera_id: cameraId,
    seq: view.seq,
    frame_at: new Date(view.capturedAt).toISOString(),
    detections_at: seen ? new Date(seen.capturedAt).toISOString() : null,
    width,
    height,
    detections: (seen?.detections ?? []).map((detection) => ({
      class: detection.className,
      confidence: Math.round(detection.confidence * 1000) / 1000,
      box: [
        share(detection.box[0], width),
        share(detection.box[1], height),
        share(detection.box[2], width),
        share(detection.box[3], height),
      ],
      track_id: trackOf(detection.box, detection.classId, seen?.tracks ?? []),
    })),
  };
}
