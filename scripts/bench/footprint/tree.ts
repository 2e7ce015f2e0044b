/**
 * Resident memory of a process and everything it started (ffmpeg children, a launcher's
 * appliance), read from Linux's /proc: VmRSS of each process, summed, sampled on a timer. Worker
 * threads live in their process and are counted with it. A sum of RSS counts pages processes share
 * (the Node binary, ffmpeg's libraries) once per process, as `ps` and a supervisor's accounting
 * do; PSS, which splits shared pages between their users, is read beside it at each peak.
 */
import { readdirSync, readFileSync } from 'node:fs';

const kbToMb = (kb: number) => Math.round((kb / 1024) * 10) / 10;

/** Parent pid and command name of a process, or undefined once it is gone. */
function statOf(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    return { ppid, name: stat.slice(stat.indexOf('(') + 1, close) };
  } catch {
    return undefined;
  }
}

function statusField(pid: number, field: string) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function pssOf(pid: number) {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

export interface TreeProcess {
  pid: number;
  name: string;
  depth: number;
}

/** The process and its descendants, parents first. */
export function processTree(root: number): TreeProcess[] {
  const children = new Map<number, Array<{ pid: number; name: string }>>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = statOf(pid);
    if (!stat) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push({ pid, name: stat.name });
    children.set(stat.ppid, siblings);
  }
  const rootStat = statOf(root);
  if (!rootStat) return [];
  const tree: TreeProcess[] = [];
  const visit = (pid: number, name: string, depth: number) => {
    tree.push({ pid, name, depth });
    for (const child of children.get(pid) ?? []) visit(child.pid, child.name, depth + 1);
  };
  visit(root, rootStat.name, 0);
  return tree;
}

/** One reading of a tree: the RSS of its root alone, of its descendants by command name, and in all. */
export interface TreeReading {
  at_s: number;
  total_mb: number;
  root_mb: number;
  children: Record<string, { count: number; mb: number }>;
}

export function readTree(root: number, startedAt: number): TreeReading {
  const byName: Record<string, { count: number; kb: number }> = {};
  let rootKb = 0;
  let totalKb = 0;
  for (const { pid, name, depth } of processTree(root)) {
    const kb = statusField(pid, 'VmRSS');
    totalKb += kb;
    if (depth === 0) {
      rootKb = kb;
      continue;
    }
    const entry = byName[name] ?? { count: 0, kb: 0 };
    entry.count += 1;
    entry.kb += kb;
    byName[name] = entry;
  }
  return {
    at_s: Math.round((performance.now() - startedAt) / 100) / 10,
    total_mb: kbToMb(totalKb),
    root_mb: kbToMb(rootKb),
    children: Object.fromEntries(
      Object.entries(byName).map(([name, { count, kb }]) => [name, { count, mb: kbToMb(kb) }]),
    ),
  };
}

/** PSS of the tree in all, MB: what it costs the machine once shared pages are split. */
export const treePssMb = (root: number) =>
  kbToMb(processTree(root).reduce((sum, { pid }) => sum + pssOf(pid), 0));

/** VmHWM of one process: its own peak since it started, MB. */
export const peakRssMb = (pid: number) => kbToMb(statusField(pid, 'VmHWM'));

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export interface TreeWindow {
  seconds: number;
  samples: number;
  /** The largest total seen, with its breakdown. */
  peak: TreeReading;
  median_mb: number;
  /** PSS of the tree when the peak was read. */
  pss_at_peak_mb: number;
}

/** Samples a tree every `everyMs` until the returned function is called; that answers the window. */
export function sampleTree(root: number, everyMs = 250) {
  const startedAt = performance.now();
  const readings: TreeReading[] = [];
  let peak = readTree(root, startedAt);
  let pssAtPeak = treePssMb(root);
  const take = () => {
    const reading = readTree(root, startedAt);
    readings.push(reading);
    if (reading.total_mb <= peak.total_mb) return;
    peak = reading;
    pssAtPeak = treePssMb(root);
  };
  take();
  const timer = setInterval(take, everyMs);
  return (): TreeWindow => {
    clearInterval(timer);
    take();
    return {
      seconds: Math.round((performance.now() - startedAt) / 100) / 10,
      samples: readings.length,
      peak,
      median_mb: Math.round(median(readings.map((r) => r.total_mb)) * 10) / 10,
      pss_at_peak_mb: pssAtPeak,
    };
  };
}
