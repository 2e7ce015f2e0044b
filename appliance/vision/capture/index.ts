/**
 * Camera capture: one ffmpeg child per camera turning an RTSP, HTTP or file source into raw yuv420p
 * frames at the camera's inference size and rate, latest-frame-wins towards the next stage, with
 * dead sources reported offline and restarted with back-off.
 */
export {
  type Capture,
  type CaptureOptions,
  type CaptureStats,
  type CaptureStatus,
  createCapture,
  type RetryScheduled,
  type StatusChange,
} from './camera-source.ts';
export { captureArgs, resolveFfmpegPath, sourceKind } from './ffmpeg.ts';
