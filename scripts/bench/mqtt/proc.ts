/**
 * What a process costs, read from Linux's /proc: resident memory (VmRSS now, VmHWM its peak), CPU
 * time (user + system) and read and write system calls, so each case says how busy the broker and
 * each load process were.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { round } from '../lib/load.ts';

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

const kbToMb = (kb: number) => round(kb / 1024, 1);

/** VmRSS and VmHWM in MB, or undefined when the process is gone. */
export function memoryOf(pid: number) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rss_mb: kbToMb(field('VmRSS')), hwm_mb: kbToMb(field('VmHWM')) };
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far (user + system; after the command name, which may hold spaces). */
export function cpuSecondsOf(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), 12 and 13 after the state field.
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** CPU seconds the whole machine spent busy so far (every state of /proc/stat's cpu line but idle and iowait). */
export function machineBusySeconds() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = ticks.reduce((sum, value) => sum + value, 0);
    return (total - (ticks[3] ?? 0) - (ticks[4] ?? 0)) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/**
 * CPU use of some processes over a stretch, in % of one core, and `others`: what the rest of the
 * machine used meanwhile (other work on a shared machine takes cores from the processes measured).
 */
export function cpuMeter(pids: Record<string, number>) {
  const started = performance.now();
  const machineBefore = machineBusySeconds();
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSecondsOf(pid)]));
  return () => {
    const seconds = (performance.now() - started) / 1000;
    const used = Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [name, cpuSecondsOf(pid) - (before[name] ?? 0)]),
    );
    const ours = Object.values(used).reduce((sum, value) => sum + value, 0);
    const others = Math.max(0, machineBusySeconds() - machineBefore - ours);
    const percent = (value: number) => round((value / seconds) * 100, 0);
    return {
      ...Object.fromEntries(Object.entries(used).map(([name, value]) => [name, percent(value)])),
      others: percent(others),
    };
  };
}

/** The highest VmRSS seen while it runs, sampled every `everyMs`. */
export function rssPeak(pid: number, everyMs = 100) {
  let peak = memoryOf(pid)?.rss_mb ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, memoryOf(pid)?.rss_mb ?? 0);
  }, everyMs);
  return () => {
    clearInterval(timer);
    return Math.max(peak, memoryOf(pid)?.rss_mb ?? 0);
  };
}

/** Read-like and write-like system calls so far (/proc/<pid>/io syscr, syscw), or undefined. */
export function syscallsOf(pid: number) {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? Number.NaN);
    const counts = { reads: field('syscr'), writes: field('syscw') };
    return Number.isNaN(counts.reads) || Number.isNaN(counts.writes) ? undefined : counts;
  } catch {
    return undefined;
  }
}

/** Read and write system calls of a process over a stretch, or null where /proc/<pid>/io is unreadable. */
export function syscallMeter(pid: number) {
  const before = syscallsOf(pid);
  return () => {
    const after = syscallsOf(pid);
    return before && after
      ? { reads: after.reads - before.reads, writes: after.writes - before.writes }
      : null;
  };
}
