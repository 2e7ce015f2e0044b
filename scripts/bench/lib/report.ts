/**
 * What every benchmark's report says about where and on what it ran (the machine and its load, the
 * commit and whether the product had uncommitted changes), and how its goals are judged.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const round2 = (value: number) => Math.round(value * 100) / 100;

export interface MachineInfo {
  cpus: number;
  cpu_model: string;
  node: string;
  /** Others share this machine: a figure measured under load says so here. */
  load_1m: { before: number; after: number };
}

/** Notes the load now; the function it returns describes the machine with the load then too. */
export function machineSampler(): () => MachineInfo {
  const before = loadavg()[0] ?? 0;
  return () => ({
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    load_1m: { before: round2(before), after: round2(loadavg()[0] ?? 0) },
  });
}

export interface CodeVersion {
  commit: string;
  product_changes_uncommitted: boolean;
  /** A digest of those changes, so two runs on the same dirty tree can be told apart from others. */
  uncommitted_diff_sha256: string | null;
}

/** The commit measured, and whether the product's code (these folders) differed from it. */
export function codeVersion(productDirs: readonly string[] = ['appliance', 'cloud', 'shared']): CodeVersion {
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    }).trim();
  try {
    const diff = git('diff', 'HEAD', '--', ...productDirs);
    return {
      commit: git('rev-parse', '--short', 'HEAD'),
      product_changes_uncommitted: git('status', '--porcelain', '--', ...productDirs) !== '',
      uncommitted_diff_sha256: diff ? createHash('sha256').update(diff).digest('hex').slice(0, 12) : null,
    };
  } catch {
    return { commit: 'unknown', product_changes_uncommitted: false, uncommitted_diff_sha256: null };
  }
}

/** A goal as an issue states it: a measure of one report, its target, and the test of a value. */
export interface GoalSpec<R> {
  measure: string;
  target: string;
  value(report: R): number | null | undefined;
  met(value: number, report: R): boolean;
}

/** A goal judged for one subject (a backend, a broker). */
export interface Goal<S extends string = string> {
  subject: S;
  measure: string;
  target: string;
  value: number | null;
  met: boolean;
  /** false when the run was invalid: its figures are shown but prove nothing either way (absent: judged). */
  judged?: boolean;
}

/**
 * Every goal for every subject. A goal is met only on a valid report: figures from a run that lost
 * or doubled something mean nothing.
 */
export function judgeGoals<S extends string, R extends { valid: boolean }>(
  reports: Partial<Record<S, R>>,
  specs: ReadonlyArray<GoalSpec<R>>,
): Goal<S>[] {
  return (Object.entries(reports) as Array<[S, R]>).flatMap(([subject, report]) =>
    specs.map((spec) => {
      const value = spec.value(report) ?? null;
      return {
        subject,
        measure: spec.measure,
        target: spec.target,
        value,
        met: report.valid && value !== null && spec.met(value, report),
        judged: report.valid,
      };
    }),
  );
}

/** `goal >= 5000: met` for a subject's measure, or nothing when there is no such goal. */
export function verdictOf(goals: readonly Goal[], subject: string, measure: string) {
  const goal = goals.find((g) => g.subject === subject && g.measure === measure);
  return goal ? `goal ${goal.target}: ${outcome(goal)}` : '';
}

const outcome = (goal: Goal) =>
  goal.judged === false ? 'not judged (invalid run)' : goal.met ? 'met' : 'NOT met';

/** `goal sqlite p99_ms < 2000: 6.1 met`, or `not judged` when the run was invalid. */
export const goalLine = (goal: Goal) =>
  `goal ${goal.subject} ${goal.measure} ${goal.target}: ${goal.value ?? '-'} ${outcome(goal)}`;

export const goalsMetLine = (goals: readonly Goal[]) =>
  `goals met: ${goals.filter((g) => g.met).length} of ${goals.length}`;
