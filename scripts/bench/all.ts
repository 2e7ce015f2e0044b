/**
 * `npm run bench -- all [--quick]`: every benchmark one after another, each in a process of its
 * own (one that fails or hangs does not stop the others), then one table of every goal met and
 * missed with the commit it was measured at: `bench-results/all.json` and `bench-results/all.md`,
 * the table the README's figures come from.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CodeVersion, codeVersion, type MachineInfo, machineSampler } from './lib/report.ts';

const RUNNER = fileURLToPath(new URL('./run.ts', import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');
/** A benchmark taking longer than this is stopped and reported as such (the full PnL plan takes most). */
const TIME_LIMIT_MS = { quick: 20 * 60_000, full: 90 * 60_000 };

export interface GoalRow {
  bench: string;
  subject: string;
  measure: string;
  target: string;
  value: number | string | null;
  met: boolean;
}

export interface BenchOutcome {
  bench: string;
  seconds: number;
  /** ok: ran and valid; invalid: ran, but its own checks failed; failed: crashed or timed out. */
  status: 'ok' | 'invalid' | 'failed';
  goals_met: number;
  goals: number;
  detail?: string | undefined;
}

export interface AllReport {
  name: 'all';
  at: string;
  plan: 'quick' | 'full';
  code: CodeVersion;
  machine: MachineInfo;
  benchmarks: BenchOutcome[];
  goals: GoalRow[];
  valid: boolean;
}

interface LooseGoal {
  subject?: unknown;
  name?: unknown;
  measure?: unknown;
  target?: unknown;
  value?: unknown;
  met?: unknown;
}

/** Every report's goals as table rows, whichever of the two shapes a report uses. */
export function goalRowsOf(bench: string, report: unknown): GoalRow[] {
  const goals = (report as { goals?: unknown } | null)?.goals;
  if (!Array.isArray(goals)) return [];
  return (goals as LooseGoal[]).map((goal) => ({
    bench,
    subject: String(goal.subject ?? bench),
    measure: String(goal.measure ?? goal.name ?? ''),
    target: String(goal.target ?? ''),
    value: typeof goal.value === 'number' || typeof goal.value === 'string' ? goal.value : null,
    met: goal.met === true,
  }));
}

function runOne(bench: string, quick: boolean, log: (line: string) => void) {
  const args = ['--import', TSX_LOADER, RUNNER, bench, ...(quick ? ['--quick'] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line) log(`  ${bench} | ${line}`);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const limit = quick ? TIME_LIMIT_MS.quick : TIME_LIMIT_MS.full;
  return new Promise<{ code: number | null; timedOut: boolean; stderr: string }>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      resolve({ code: null, timedOut: true, stderr });
    }, limit);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut: false, stderr });
    });
  });
}

async function reportOf(resultsDir: string, bench: string, since: number) {
  try {
    const text = await readFile(join(resultsDir, `${bench}.json`), 'utf8');
    const report = JSON.parse(text) as { at?: string; valid?: boolean };
    // A report left by an earlier run is not this run's.
    const at = Date.parse(report.at ?? '');
    return Number.isFinite(at) && at < since ? undefined : report;
  } catch {
    return undefined;
  }
}

export async function runAllBench(options: {
  names: readonly string[];
  quick: boolean;
  resultsDir: string;
  log?: (line: string) => void;
}): Promise<AllReport> {
  const log = options.log ?? ((line: string) => console.log(line));
  const machine = machineSampler();
  const code = codeVersion();
  const benchmarks: BenchOutcome[] = [];
  const goals: GoalRow[] = [];
  for (const bench of options.names) {
    const started = Date.now();
    log(`${bench}: running${options.quick ? ' (quick plan)' : ''}`);
    const run = await runOne(bench, options.quick, log);
    const report = await reportOf(options.resultsDir, bench, started);
    const rows = report ? goalRowsOf(bench, report) : [];
    goals.push(...rows);
    const status = run.timedOut || !report ? 'failed' : report.valid === false ? 'invalid' : 'ok';
    benchmarks.push({
      bench,
      seconds: Math.round((Date.now() - started) / 1000),
      status,
      goals_met: rows.filter((g) => g.met).length,
      goals: rows.length,
      detail: run.timedOut
        ? 'time limit reached'
        : !report
          ? run.stderr.trim().split('\n').at(-1)
          : undefined,
    });
  }
  return {
    name: 'all',
    at: new Date().toISOString(),
    plan: options.quick ? 'quick' : 'full',
    code,
    machine: machine(),
    benchmarks,
    goals,
    valid: benchmarks.every((b) => b.status === 'ok'),
  };
}

const cell = (value: unknown) => String(value ?? '-').replaceAll('|', '\\|');

/** The table as Markdown, headed by the commit and date, as the README shows it. */
export function allMarkdown(report: AllReport): string {
  const dirty = report.code.product_changes_uncommitted ? ' (with uncommitted changes)' : '';
  const met = report.goals.filter((g) => g.met).length;
  return [
    `Measured ${report.at.slice(0, 10)} at commit ${report.code.commit}${dirty}, ${report.plan} plan, ${report.machine.cpus} cores (${report.machine.cpu_model}), load ${report.machine.load_1m.before} → ${report.machine.load_1m.after}: ${met} of ${report.goals.length} goals met.`,
    '',
    '| Benchmark | Subject | Measure | Goal | Measured | Met |',
    '|---|---|---|---|---|---|',
    ...report.goals.map(
      (g) =>
        `| ${cell(g.bench)} | ${cell(g.subject)} | ${cell(g.measure)} | ${cell(g.target)} | ${cell(g.value)} | ${g.met ? 'yes' : '**no**'} |`,
    ),
    ...report.benchmarks
      .filter((b) => b.status !== 'ok')
      .map((b) => `\n${b.bench}: ${b.status}${b.detail ? ` (${b.detail})` : ''}`),
    '',
  ].join('\n');
}

export function summarizeAll(report: AllReport): string[] {
  const width = Math.max(...report.goals.map((g) => `${g.bench} ${g.subject} ${g.measure}`.length), 20);
  return [
    `all: ${report.plan} plan at ${report.code.commit}${report.code.product_changes_uncommitted ? ' (with uncommitted changes)' : ''}, ${report.machine.cpus} cpus, load ${report.machine.load_1m.before} -> ${report.machine.load_1m.after}`,
    ...report.benchmarks.map(
      (b) =>
        `${b.bench.padEnd(18)} ${b.status.padEnd(8)} ${String(b.seconds).padStart(5)} s  goals ${b.goals_met}/${b.goals}${b.detail ? `  (${b.detail})` : ''}`,
    ),
    '',
    ...report.goals.map(
      (g) =>
        `${`${g.bench} ${g.subject} ${g.measure}`.padEnd(width)}  ${g.target.padEnd(12)} ${String(g.value ?? '-').padStart(10)}  ${g.met ? 'met' : 'NOT met'}`,
    ),
    `goals met: ${report.goals.filter((g) => g.met).length} of ${report.goals.length}`,
  ];
}

export async function writeAllMarkdown(resultsDir: string, report: AllReport) {
  await writeFile(join(resultsDir, 'all.md'), allMarkdown(report));
}
