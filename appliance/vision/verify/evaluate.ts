/**
 * How well verification did on trays whose contents are known: the verdict, missing items, extra
 * items. The truth is what is on the tray against what was ordered, unit by unit, because that is
 * all a camera can judge: a tray where a missing Fries was made up for by an extra Fries holds
 * exactly the order, and is correct here.
 */
import type { ItemCount, OrderVerification } from './compare.ts';
import { normaliseName } from './mapping.ts';

export interface VerificationCase {
  ordered: readonly ItemCount[];
  /** What is really on the tray. */
  present: readonly ItemCount[];
  result: Pick<OrderVerification, 'verified' | 'missing_items' | 'extra_items'>;
}

export interface VerificationMetrics {
  trays: number;
  correctTrays: number;
  /** Share of trays whose verdict (verified or not) agrees with the truth. */
  verdictAccuracy: number;
  /** Of units truly missing, the share reported missing. */
  missingRecall: number;
  /** Of units reported missing, the share truly missing. */
  missingPrecision: number;
  /** Of truly correct trays, the share not verified. */
  falseAlarmRate: number;
  /** Of trays truly wrong, the share verified. */
  passedWrongRate: number;
  extraRecall: number;
  extraPrecision: number;
  counts: {
    missing: number;
    missingFound: number;
    missingReported: number;
    extra: number;
    extraFound: number;
    extraReported: number;
  };
}

export interface EvaluateOptions {
  /**
   * The key items are compared by; names by default. Where menu items share a class, pass one
   * giving the class, since verification cannot tell such items apart.
   */
  keyOf?: (name: string) => string;
}

function tally(items: readonly ItemCount[], keyOf: (name: string) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { name, quantity } of items) counts.set(keyOf(name), (counts.get(keyOf(name)) ?? 0) + quantity);
  return counts;
}

/** What `a` has more of than `b`, per key. */
function surplus(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, n] of a) if (n > (b.get(key) ?? 0)) out.set(key, n - (b.get(key) ?? 0));
  return out;
}

const total = (counts: ReadonlyMap<string, number>) => [...counts.values()].reduce((s, n) => s + n, 0);

/** Units both reported and true, key by key. */
function overlap(truth: ReadonlyMap<string, number>, reported: ReadonlyMap<string, number>): number {
  let n = 0;
  for (const [key, q] of truth) n += Math.min(q, reported.get(key) ?? 0);
  return n;
}

/** Truly missing and extra units of one tray. */
export function trayTruth(
  ordered: readonly ItemCount[],
  present: readonly ItemCount[],
  keyOf = normaliseName,
) {
  const want = tally(ordered, keyOf);
  const have = tally(present, keyOf);
  const missing = surplus(want, have);
  const extra = surplus(have, want);
  return { missing, extra, correct: missing.size === 0 && extra.size === 0 };
}

const share = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

export function evaluateVerification(
  cases: readonly VerificationCase[],
  options: EvaluateOptions = {},
): VerificationMetrics {
  const keyOf = options.keyOf ?? normaliseName;
  const c = { missing: 0, missingFound: 0, missingReported: 0, extra: 0, extraFound: 0, extraReported: 0 };
  let agree = 0;
  let correctTrays = 0;
  let falseAlarms = 0;
  let passedWrong = 0;
  for (const { ordered, present, result } of cases) {
    const truth = trayTruth(ordered, present, keyOf);
    const reportedMissing = tally(result.missing_items, keyOf);
    const reportedExtra = tally(result.extra_items, keyOf);
    c.missing += total(truth.missing);
    c.missingReported += total(reportedMissing);
    c.missingFound += overlap(truth.missing, reportedMissing);
    c.extra += total(truth.extra);
    c.extraReported += total(reportedExtra);
    c.extraFound += overlap(truth.extra, reportedExtra);
    if (truth.correct === result.verified) agree += 1;
    if (truth.correct) correctTrays += 1;
    if (truth.correct && !result.verified) falseAlarms += 1;
    if (!truth.correct && result.verified) passedWrong += 1;
  }
  return {
    trays: cases.length,
    correctTrays,
    verdictAccuracy: share(agree, cases.length),
    missingRecall: share(c.missingFound, c.missing),
    missingPrecision: share(c.missingFound, c.missingReported),
    falseAlarmRate: share(falseAlarms, correctTrays),
    passedWrongRate: share(passedWrong, cases.length - correctTrays),
    extraRecall: share(c.extraFound, c.extra),
    extraPrecision: share(c.extraFound, c.extraReported),
    counts: c,
  };
}
