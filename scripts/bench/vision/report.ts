/** The camera pipeline benchmark's report: the baseline, each measure, the goals, a table. */
import {
  type CodeVersion,
  type Goal,
  type GoalSpec,
  goalLine,
  judgeGoals,
  type MachineInfo,
} from '../lib/report.ts';
import type { ClipName, Clips } from './clips.ts';
import type { PipelineReport } from './measure.ts';
import type { VisionPlan } from './plan.ts';
import type { BaselineReply, InferenceFigures, InitReply, Percentiles } from './protocol.ts';

export interface VisionReport {
  name: 'vision';
  at: string;
  machine: MachineInfo;
  code: CodeVersion;
  layout: string;
  method: Record<string, string>;
  settings: {
    plan: 'full' | 'quick';
    sizes: VisionPlan;
    clips: Clips | null;
    model: InitReply['model'] | null;
    node_flags: readonly string[];
  };
  valid: boolean;
  problems: string[];
  baseline: BaselineReply | null;
  pipelines: Record<string, PipelineReport>;
  goals: Goal[];
}

const NON_INFERENCE_MS = 5;
const EVENT_LOOP_P99_MS = 20;
const CORES = 1.6;

const nonInference: GoalSpec<PipelineReport> = {
  measure: 'non-inference work per inferred frame, ms',
  target: `<= ${NON_INFERENCE_MS}`,
  value: (r) => r.non_inference_ms_per_inferred_frame.total,
  met: (v) => v <= NON_INFERENCE_MS,
};

const latencyGoal = (limitMs: number): GoalSpec<PipelineReport> => ({
  measure: 'capture-to-result latency p95, ms',
  target: `< ${limitMs}`,
  value: (r) => r.capture_to_result_ms.p95,
  met: (v) => v < limitMs,
});

const ONE_CAMERA: GoalSpec<PipelineReport>[] = [nonInference, latencyGoal(300)];

const EIGHT_CAMERAS: GoalSpec<PipelineReport>[] = [
  nonInference,
  {
    measure: 'event-loop delay p99 of the API process, ms',
    target: `< ${EVENT_LOOP_P99_MS}`,
    value: (r) => r.event_loop_delay_ms.p99,
    met: (v) => v < EVENT_LOOP_P99_MS,
  },
  {
    measure: 'CPU of the API process and its ffmpeg children, cores',
    target: `<= ${CORES}`,
    value: (r) => r.cpu.total,
    met: (v) => v <= CORES,
  },
  {
    measure: 'frames dropped (latest-wins: the pipeline was busy)',
    target: '= 0',
    value: (r) => r.frames.dropped,
    met: (v) => v === 0,
  },
  latencyGoal(1000),
];

export const subjectOf = (clip: ClipName, cameras: number) =>
  `${clip}, ${cameras} camera${cameras === 1 ? '' : 's'}`;

export function goalsOf(pipelines: Record<string, PipelineReport>): Goal[] {
  return Object.entries(pipelines).flatMap(([subject, report]) => {
    const specs = report.cameras === 1 ? ONE_CAMERA : report.cameras === 8 ? EIGHT_CAMERAS : [];
    return judgeGoals({ [subject]: report }, specs);
  });
}

const COLUMNS = [
  ['clip', 10],
  ['cameras', 8],
  ['read/s/cam', 10],
  ['inferred/s', 10],
  ['motion-skipped', 14],
  ['dropped', 7],
  ['capture->result p50/p95/p99 ms', 30],
  ['ELD p50/p99/max ms', 18],
  ['HTTP p50/p99 ms', 15],
  ['cores all/main/det/other/ffmpeg', 31],
  ['rest', 5],
] as const;

const row = (cells: string[]) => cells.map((cell, i) => cell.padEnd(COLUMNS[i]![1])).join(' ');
const p = (x: Percentiles, ...keys: Array<'p50' | 'p95' | 'p99' | 'max'>) =>
  keys.map((key) => x[key] ?? '-').join('/');

function pipelineRow(r: PipelineReport) {
  const c = r.cpu;
  return row([
    r.clip,
    String(r.cameras),
    String(r.frames.read_per_camera_per_second),
    String(r.frames.inferred_per_second),
    `${r.frames.skipped_by_motion} (${Math.round(r.frames.skipped_by_motion_share * 100)}%)`,
    String(r.frames.dropped),
    p(r.capture_to_result_ms, 'p50', 'p95', 'p99'),
    p(r.event_loop_delay_ms, 'p50', 'p99', 'max'),
    p(r.http.response_ms, 'p50', 'p99'),
    `${c.total}/${c.main_thread}/${c.detector_threads}/${c.other_threads}/${c.ffmpeg}`,
    String(c.rest_of_machine),
  ]);
}

function breakdown(name: string, r: PipelineReport) {
  const n = r.non_inference_ms_per_inferred_frame;
  const d = r.detector;
  return [
    `${name}: non-inference ms per inferred frame ${n.total ?? '-'} = event loop ${n.event_loop ?? '-'} (gross ${n.event_loop_gross ?? '-'}, of which tracker+lane ${n.tracker_and_lane ?? '-'}) + worker letterbox/decode ${n.worker_pre_post ?? '-'} + other threads ${n.other_threads ?? '-'}; cross-check process CPU less inference ${n.process_less_inference ?? '-'}`,
    `${name}: detector ${d.frames} frames in ${d.batches} batches (mean ${d.mean_batch ?? '-'}), inference ms per batch p50/p99 ${p(d.inference_ms_per_batch, 'p50', 'p99')}, per frame ${d.inference_ms_per_frame ?? '-'}, request-to-answer p50/p99 ${p(d.round_trip_ms, 'p50', 'p99')}; ffmpeg ${r.ffmpeg_cpu_ms_per_frame_read ?? '-'} ms CPU per frame read; idle (no camera): main thread ${r.idle.cpu.main_thread} cores, ELD p99 ${r.idle.event_loop_delay_ms.p99 ?? '-'} ms, HTTP p99 ${r.idle.http.response_ms.p99 ?? '-'} ms`,
    ...r.notes.map((note) => `${name}: note: ${note}`),
    ...r.problems.map((problem) => `${name}: PROBLEM: ${problem}`),
  ];
}

const inferenceLine = (f: InferenceFigures) =>
  `batch ${f.batch}: ${f.frames_per_second} frames/s through the detector; inference ms per batch p50/p99 ${p(f.inference_ms_per_batch, 'p50', 'p99')} (${f.inference_ms_per_frame ?? '-'} a frame), letterbox ${f.pre_ms_per_frame ?? '-'} + decode ${f.post_ms_per_frame ?? '-'} ms a frame, request-to-answer p50/p99 ${p(f.round_trip_ms, 'p50', 'p99')} ms`;

export function summarizeVision(report: VisionReport): string[] {
  const { machine, code, settings, baseline } = report;
  const dirty = code.product_changes_uncommitted
    ? ` (with uncommitted changes ${code.uncommitted_diff_sha256 ?? ''})`
    : '';
  const clips = settings.clips;
  const entries = Object.entries(report.pipelines);
  return [
    `vision: ${settings.plan} plan at ${code.commit}${dirty}, ${machine.cpus} cpus (${machine.cpu_model}), node ${machine.node}, load ${machine.load_1m.before} -> ${machine.load_1m.after}`,
    clips
      ? `sources: lane seed ${clips.seed}, ${clips.size} at ${clips.fps} fps, ${clips.seconds} s looped (${clips.cars} cars), camera i starts ${clips.offsets_s.join('/')} s in; noisy lane: the same with ${clips.noise_filter} at 2 Mbit/s; model ${settings.model?.name ?? '-'} ${settings.model?.input_size ?? '-'} px, batch <= ${settings.sizes.maxBatch}; ${settings.sizes.seconds} s measured after ${settings.sizes.warmupSeconds} s warm-up`
      : 'sources: none',
    ...(baseline
      ? [
          `baseline (${baseline.frames_decoded} frames of the clip, one in ${baseline.frame_step}): ${inferenceLine(baseline.batch_1)}`,
          `baseline: ${inferenceLine(baseline.batch_n)}; motion check ms p50/p99 ${p(baseline.motion_check_ms, 'p50', 'p99')}`,
        ]
      : []),
    'cores: CPU seconds per second; det = detector threads; rest = the rest of the machine meanwhile',
    row(COLUMNS.map(([title]) => title)),
    ...entries.map(([, r]) => pipelineRow(r)),
    ...entries.flatMap(([name, r]) => breakdown(name, r)),
    ...report.goals.map(goalLine),
    `goals met: ${report.goals.filter((g) => g.met).length} of ${report.goals.length}`,
    ...(report.valid ? [] : [`INVALID run: ${report.problems.join('; ')}`]),
  ];
}
