/**
 * Where the CPU goes during a window, read from /proc: the API process by thread (its main thread,
 * which runs the event loop; the detector's threads; the rest: GC helpers, libuv's pool), its
 * ffmpeg children (found by parent pid), and the rest of the machine, in cores.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { round } from '../lib/load.ts';
import { machineBusySeconds } from '../mqtt/proc.ts';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime (+ cutime + cstime: children waited for) of a stat file, in clock ticks. */
function ticksOf(file: string, withChildren = false) {
  try {
    const stat = readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = Number(fields[11]) + Number(fields[12]);
    return withChildren ? own + Number(fields[13]) + Number(fields[14]) : own;
  } catch {
    return 0;
  }
}

function parentOf(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return -1;
  }
}

const childrenOf = (pid: number) =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((candidate) => parentOf(candidate) === pid);

interface Sample {
  at: number;
  /** Process, main thread, detector threads: clock ticks. */
  process: number;
  main: number;
  detector: number;
  /** The process's own and its waited-for children's ticks: children that ended in the window. */
  withReaped: number;
  children: Map<number, number>;
  machine: number;
}

export interface CpuWindow {
  seconds: number;
  /** Cores: CPU seconds per second of the window. */
  api_process: number;
  main_thread: number;
  detector_threads: number;
  other_threads: number;
  ffmpeg: number;
  ffmpeg_processes: number;
  /** The API process and its ffmpeg children. */
  total: number;
  /** Everything else on the machine meanwhile (other people's work on a shared machine). */
  rest_of_machine: number;
}

export function cpuMeter(pid: number, detectorTids: readonly number[]) {
  const sample = (): Sample => ({
    at: performance.now(),
    process: ticksOf(`/proc/${pid}/stat`),
    main: ticksOf(`/proc/${pid}/task/${pid}/stat`),
    detector: detectorTids.reduce((sum, tid) => sum + ticksOf(`/proc/${pid}/task/${tid}/stat`), 0),
    withReaped: ticksOf(`/proc/${pid}/stat`, true),
    children: new Map(childrenOf(pid).map((child) => [child, ticksOf(`/proc/${child}/stat`)])),
    machine: machineBusySeconds(),
  });
  const start = sample();
  return (): CpuWindow => {
    const end = sample();
    const seconds = (end.at - start.at) / 1000;
    const cores = (ticks: number) => round(ticks / TICKS_PER_SECOND / seconds, 3);
    let ffmpeg = end.withReaped - end.process - (start.withReaped - start.process);
    for (const [child, ticks] of end.children) ffmpeg += ticks - (start.children.get(child) ?? 0);
    for (const [child, ticks] of start.children) if (!end.children.has(child)) ffmpeg -= ticks;
    const api = end.process - start.process;
    const main = end.main - start.main;
    const detector = end.detector - start.detector;
    const total = cores(api + ffmpeg);
    return {
      seconds: round(seconds, 2),
      api_process: cores(api),
      main_thread: cores(main),
      detector_threads: cores(detector),
      other_threads: cores(api - main - detector),
      ffmpeg: cores(ffmpeg),
      ffmpeg_processes: end.children.size,
      total,
      rest_of_machine: round(Math.max(0, (end.machine - start.machine) / seconds - total), 3),
    };
  };
}
