/**
 * One measure of the pipeline: a fresh API process, polled over HTTP from start to end; a window
 * with the model loaded and no camera (what answering the polls costs the event loop), then the
 * cameras started, warmed up, and a sustained window measured.
 */
import { round } from '../lib/load.ts';
import type { ClipName } from './clips.ts';
import type { ApiProcess } from './control.ts';
import { type CpuWindow, cpuMeter } from './cpu.ts';
import type { VisionPlan } from './plan.ts';
import { type PollWindow, startPoller } from './poller.ts';
import type { CameraWindow, Percentiles, WindowReply } from './protocol.ts';

/** What the bench asks: a terminal's light request, and once a second a dashboard's cameras with figures. */
export const POLLED =
  "GET /api/status (a small JSON answer), and every 50th request (once a second) GET /api/vision/cameras (every camera's metrics(): counters and percentiles)";
const DASHBOARD_EVERY = 50;
const pathOf = (i: number) => (i % DASHBOARD_EVERY === 0 ? '/api/vision/cameras' : '/api/status');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface WindowMeasure {
  child: WindowReply;
  cpu: CpuWindow;
  http: PollWindow;
}

export interface NonInference {
  /** The goal's figure: the three below added. */
  total: number | null;
  /** Main thread CPU less what it spent with no camera (answering the polls), per inferred frame. */
  event_loop: number | null;
  /** The same without subtracting anything. */
  event_loop_gross: number | null;
  /** Letterboxing and decoding of boxes in the detector's worker (its own timings). */
  worker_pre_post: number | null;
  /** The process's other threads (GC helpers, libuv's pool), less their idle share. */
  other_threads: number | null;
  /** Cross-check: the whole process's CPU less its idle share and less onnxruntime's run time. */
  process_less_inference: number | null;
  /** Part of event_loop, timed: from the detector's answer to the camera's result (tracker, lane). */
  tracker_and_lane: number | null;
}

export interface PipelineReport {
  /** The cameras' clip: the lane as rendered, or with sensor noise. */
  clip: ClipName;
  cameras: number;
  sources: string[];
  /** Threads that appeared with the detector (its worker): their CPU is `detector_threads`. */
  detector_thread_ids: number[];
  /** Set when the measure was run twice for outside load: the rest of the machine in the run not kept. */
  other_run: { rest_of_machine: number } | null;
  valid: boolean;
  problems: string[];
  notes: string[];
  idle: { seconds: number; event_loop_delay_ms: Percentiles; http: PollWindow; cpu: CpuWindow };
  seconds: number;
  frames: {
    read: number;
    read_per_camera_per_second: number;
    dropped: number;
    skipped_by_motion: number;
    skipped_by_motion_share: number;
    inferred: number;
    inferred_per_second: number;
    detections: number;
  };
  capture_to_result_ms: Percentiles;
  event_loop_delay_ms: Percentiles;
  http: PollWindow;
  cpu: CpuWindow;
  detector: WindowReply['detector'] & { inference_ms_per_frame: number | null };
  non_inference_ms_per_inferred_frame: NonInference;
  ffmpeg_cpu_ms_per_frame_read: number | null;
  after_detection_ms: Percentiles;
  lane_events: Record<string, number>;
  warnings: { count: number; last: string[] };
  per_camera: CameraWindow[];
}

async function measureWindow(api: ApiProcess, poller: ReturnType<typeof startPoller>, seconds: number) {
  await api.request({ op: 'mark' });
  const since = performance.now();
  const cpu = cpuMeter(api.pid, api.init.detector_tids);
  await sleep(seconds * 1000);
  const used = cpu();
  const child = await api.request<WindowReply>({ op: 'collect' });
  return { child, cpu: used, http: poller.window(since) } satisfies WindowMeasure;
}

const sum = (cameras: CameraWindow[], key: keyof CameraWindow) =>
  cameras.reduce((total, camera) => total + (camera[key] as number), 0);

function nonInference(run: WindowMeasure, idle: WindowMeasure, inferred: number): NonInference {
  const ms = (cores: number) => cores * run.cpu.seconds * 1000;
  const perFrame = (value: number) => (inferred > 0 ? round(value / inferred, 3) : null);
  const eventLoop = ms(run.cpu.main_thread - idle.cpu.main_thread);
  const worker = run.child.detector.pre_ms_total + run.child.detector.post_ms_total;
  const other = ms(run.cpu.other_threads - idle.cpu.other_threads);
  const processNet = ms(run.cpu.api_process - idle.cpu.api_process);
  return {
    total: perFrame(eventLoop + worker + other),
    event_loop: perFrame(eventLoop),
    event_loop_gross: perFrame(ms(run.cpu.main_thread)),
    worker_pre_post: perFrame(worker),
    other_threads: perFrame(other),
    process_less_inference: perFrame(processNet - run.child.detector.inference_ms_total),
    tracker_and_lane: run.child.after_detection_ms.mean,
  };
}

function problemsOf(run: WindowMeasure, idle: WindowMeasure, inferred: number) {
  const problems: string[] = [];
  for (const camera of run.child.cameras) {
    if (camera.status !== 'online' || camera.status_changes > 0)
      problems.push(`${camera.id}: ${camera.status} at the end, ${camera.status_changes} status changes`);
  }
  if (run.child.warnings > 0)
    problems.push(`${run.child.warnings} warnings logged, last: ${run.child.last_warnings.join(' | ')}`);
  for (const [name, http] of [
    ['idle', idle.http],
    ['cameras', run.http],
  ] as const) {
    if (http.non_200 + http.errors > 0)
      problems.push(`${name}: ${http.non_200} polls answered other than 200, ${http.errors} failed`);
  }
  if (inferred === 0) problems.push('no frame was inferred');
  return problems;
}

function notesOf(report: Omit<PipelineReport, 'notes'>, fps: number) {
  const notes: string[] = [];
  if (report.frames.read_per_camera_per_second < fps * 0.97)
    notes.push(
      `frames were read at ${report.frames.read_per_camera_per_second}/s a camera, short of the source's ${fps}: ffmpeg fell behind real time`,
    );
  if (report.cpu.rest_of_machine > 0.25)
    notes.push(
      `the rest of the machine used ${report.cpu.rest_of_machine} cores meanwhile: these figures are from a shared machine`,
    );
  return notes;
}

function assemble(
  clip: ClipName,
  cameras: number,
  sources: string[],
  detectorTids: number[],
  fps: number,
  idle: WindowMeasure,
  run: WindowMeasure,
): PipelineReport {
  const { child, cpu } = run;
  const read = sum(child.cameras, 'frames_read');
  const inferred = sum(child.cameras, 'frames_inferred');
  const skipped = sum(child.cameras, 'frames_skipped_by_motion');
  const problems = problemsOf(run, idle, inferred);
  const report = {
    clip,
    cameras,
    sources,
    detector_thread_ids: detectorTids,
    other_run: null,
    valid: problems.length === 0,
    problems,
    idle: {
      seconds: idle.cpu.seconds,
      event_loop_delay_ms: idle.child.event_loop_delay_ms,
      http: idle.http,
      cpu: idle.cpu,
    },
    seconds: cpu.seconds,
    frames: {
      read,
      read_per_camera_per_second: round(read / cameras / cpu.seconds, 2),
      dropped: sum(child.cameras, 'frames_dropped'),
      skipped_by_motion: skipped,
      skipped_by_motion_share: read > 0 ? round(skipped / read, 3) : 0,
      inferred,
      inferred_per_second: round(inferred / cpu.seconds, 1),
      detections: sum(child.cameras, 'detections'),
    },
    capture_to_result_ms: child.capture_to_result_ms,
    event_loop_delay_ms: child.event_loop_delay_ms,
    http: run.http,
    cpu,
    detector: {
      ...child.detector,
      inference_ms_per_frame:
        child.detector.frames > 0
          ? round(child.detector.inference_ms_total / child.detector.frames, 3)
          : null,
    },
    non_inference_ms_per_inferred_frame: nonInference(run, idle, inferred),
    ffmpeg_cpu_ms_per_frame_read: read > 0 ? round((cpu.ffmpeg * cpu.seconds * 1000) / read, 3) : null,
    after_detection_ms: child.after_detection_ms,
    lane_events: child.lane_events,
    warnings: { count: child.warnings, last: child.last_warnings },
    per_camera: child.cameras,
  };
  return { ...report, notes: notesOf(report, fps) };
}

/** Seconds one measure takes, about (start, idle window, warm-up, window, stop). */
export const measureSeconds = (plan: VisionPlan) => plan.idleSeconds + plan.warmupSeconds + plan.seconds + 8;

/** `cameras` cameras on the clip's first `cameras` files, in an API process of their own. */
export async function measurePipelines(
  api: ApiProcess,
  plan: VisionPlan,
  clip: { clip: ClipName; files: string[] },
  cameras: number,
): Promise<PipelineReport> {
  const poller = startPoller(api.init.port, pathOf, plan.pollIntervalMs);
  try {
    // The polls' first answers compile the route's code; the window starts on a warm server.
    await sleep(1000);
    const idle = await measureWindow(api, poller, plan.idleSeconds);
    const sources = clip.files.slice(0, cameras);
    await api.request({
      op: 'start',
      cameras: sources.map((url, i) => ({ id: `lane-${i + 1}`, url })),
      width: plan.clip.width,
      height: plan.clip.height,
      fps: plan.inferenceFps,
      // Cameras' frames spread over one frame interval, as cameras that are not synchronised would be.
      staggerMs: 1000 / plan.inferenceFps / cameras,
    });
    await sleep(plan.warmupSeconds * 1000);
    const run = await measureWindow(api, poller, plan.seconds);
    return assemble(clip.clip, cameras, sources, api.init.detector_tids, plan.clip.fps, idle, run);
  } finally {
    await poller.stop();
  }
}
