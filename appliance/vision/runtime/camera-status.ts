/**
 * Each camera as a screen shows it, every second: whether its pipeline runs (and why not), how
 * fast it reads, how long the model takes and how many frames it drops over the last minute, and
 * its last frame. Built from memory only (the registry's cameras as the runtime last heard of
 * them, the pipelines' own figures), so asking costs no database read.
 */
import type { CameraPipeline } from '../pipeline/camera.ts';
import type { CameraType, VisionCamera } from '../registry/index.ts';

export type CameraState = 'running' | 'starting' | 'stopped' | 'error';

export interface CameraStatusEntry {
  id: string;
  name: string;
  type: CameraType;
  enabled: boolean;
  state: CameraState;
  /** Why the camera is stopped or in error (its capture's last failure, secrets masked); else null. */
  reason: string | null;
  /** Frames read a second now (0 unless running). */
  fps: number;
  /** The model's time per frame over the last minute. */
  inference_latency_ms: { p50: number | null; p99: number | null };
  frames_dropped_last_minute: number;
  last_frame_at: string | null;
}

/** A camera without a pipeline: disabled, not started (yet), or failed to start. */
export interface IdleState {
  state: Exclude<CameraState, 'running'>;
  reason: string | null;
}

const round = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);

/** ffmpeg's messages can carry the source URL: `rtsp://user:secret@host` loses its secret. */
export const withoutSecrets = (text: string) =>
  text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:)[^\s@/]*@/gi, '$1***@');

function base(camera: VisionCamera) {
  return { id: camera.id, name: camera.name, type: camera.type, enabled: camera.enabled };
}

export function idleCameraStatus(camera: VisionCamera, idle: IdleState): CameraStatusEntry {
  return {
    ...base(camera),
    state: idle.state,
    reason: idle.reason === null ? null : withoutSecrets(idle.reason),
    fps: 0,
    inference_latency_ms: { p50: null, p99: null },
    frames_dropped_last_minute: 0,
    last_frame_at: null,
  };
}

/** `offlineReason`: what the capture said when it last went offline. */
export function runningCameraStatus(
  camera: VisionCamera,
  pipeline: CameraPipeline,
  offlineReason: string | undefined,
): CameraStatusEntry {
  const figures = pipeline.liveFigures();
  const state: CameraState =
    figures.status === 'online' ? 'running' : figures.status === 'starting' ? 'starting' : 'error';
  return {
    ...base(camera),
    state,
    reason: state === 'error' ? withoutSecrets(offlineReason ?? 'camera source offline') : null,
    fps: state === 'running' ? (round(figures.fps) ?? 0) : 0,
    inference_latency_ms: {
      p50: round(figures.inferenceLastMinute.p50),
      p99: round(figures.inferenceLastMinute.p99),
    },
    frames_dropped_last_minute: figures.framesDroppedLastMinute,
    last_frame_at: figures.lastFrameAt === undefined ? null : new Date(figures.lastFrameAt).toISOString(),
  };
}
