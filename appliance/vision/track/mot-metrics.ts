/**
 * Multi-object tracking scores of a tracker's hypotheses against ground truth, frame by frame.
 *
 * CLEAR MOT (Bernardin and Stiefelhagen, "Evaluating Multiple Object Tracking Performance: The
 * CLEAR MOT Metrics", EURASIP JIVP 2008), in the form py-motmetrics computes it:
 * - in each frame, a ground-truth object keeps the hypothesis it was matched to in the previous
 *   frame while their IoU is still at least the threshold (0.5);
 * - the objects and hypotheses left are matched to give the most pairs at the IoU threshold, the
 *   least total distance (1 − IoU) among those (Hungarian method);
 * - a match is an identity switch when the object's last match, in whatever earlier frame, was
 *   another hypothesis; an object left unmatched is a miss (FN), a hypothesis left so a false
 *   positive (FP);
 * - MOTA = 1 − (FN + FP + IDSW) / (ground-truth objects over all frames); MOTP here is the mean IoU
 *   of the matches (py-motmetrics reports the mean distance, 1 − this).
 *
 * Identity scores (Ristani et al., "Performance Measures and a Data Set for Multi-Target,
 * Multi-Camera Tracking", ECCV 2016 workshops): each ground-truth trajectory is paired with at most
 * one hypothesis trajectory, one to one, so that IDFN + IDFP over the whole sequence is least, which
 * is the pairing with the most IDTP; IDTP counts the frames where a pair are both present with IoU
 * at least the threshold; IDFN = ground-truth detections − IDTP, IDFP = hypothesis detections −
 * IDTP; IDF1 = 2 IDTP / (2 IDTP + IDFP + IDFN).
 *
 * Objects that should not count either way (mostly hidden, say) are passed as ignored boxes, as
 * the MOTChallenge evaluation treats distractors: the hypotheses matched to them at the threshold
 * (most pairs, least distance) are dropped from the frame before it is scored.
 */

import { type Box, iou } from '../types.ts';
import { matchWithinCost } from './assignment.ts';

export interface MotObject {
  id: number;
  box: Box;
}

export interface MotSummary {
  frames: number;
  /** Ground-truth objects over all frames. */
  groundTruth: number;
  /** Hypotheses over all frames. */
  hypotheses: number;
  matches: number;
  misses: number;
  falsePositives: number;
  idSwitches: number;
  /** NaN when there is no ground truth. */
  mota: number;
  /** Mean IoU of the matches; NaN when none. */
  motp: number;
  precision: number;
  recall: number;
  idtp: number;
  idfp: number;
  idfn: number;
  idf1: number;
  idPrecision: number;
  idRecall: number;
}

export interface MotAccumulator {
  add(groundTruth: readonly MotObject[], hypotheses: readonly MotObject[], ignored?: readonly Box[]): void;
  summary(): MotSummary;
}

export function createMotAccumulator(iouThreshold = 0.5): MotAccumulator {
  const totals = { frames: 0, groundTruth: 0, hypotheses: 0, matches: 0, idSwitches: 0, overlap: 0 };
  /** The hypothesis each object was last matched to, ever, for identity switches. */
  const lastMatch = new Map<number, number>();
  /** The previous frame's pairs, kept while still valid. */
  let previous = new Map<number, number>();
  const gtLengths = new Map<number, number>();
  const hypLengths = new Map<number, number>();
  /** Frames each (object, hypothesis) pair overlapped enough, for IDTP. */
  const together = new Map<number, Map<number, number>>();

  function match(object: number, hypothesis: number, overlap: number, current: Map<number, number>) {
    const before = lastMatch.get(object);
    if (before !== undefined && before !== hypothesis) totals.idSwitches += 1;
    lastMatch.set(object, hypothesis);
    current.set(object, hypothesis);
    totals.matches += 1;
    totals.overlap += overlap;
  }

  /** The hypotheses left once those matched to ignored objects are dropped. */
  function withoutIgnored(hyp: readonly MotObject[], ignored: readonly Box[]): readonly MotObject[] {
    if (ignored.length === 0 || hyp.length === 0) return hyp;
    const cost = ignored.flatMap((box) =>
      hyp.map((h) => {
        const overlap = iou(box, h.box);
        return overlap >= iouThreshold ? 1 - overlap : Number.POSITIVE_INFINITY;
      }),
    );
    const limit = Math.min(ignored.length, hyp.length) + 1;
    const { colToRow } = matchWithinCost(cost, ignored.length, hyp.length, limit);
    return hyp.filter((_, j) => colToRow[j] === -1);
  }

  function add(gt: readonly MotObject[], allHyp: readonly MotObject[], ignored: readonly Box[] = []) {
    const hyp = withoutIgnored(allHyp, ignored);
    totals.frames += 1;
    totals.groundTruth += gt.length;
    totals.hypotheses += hyp.length;
    const overlaps = gt.map((g) => hyp.map((h) => iou(g.box, h.box)));
    countTogether(gt, hyp, overlaps);

    const current = new Map<number, number>();
    const gtFree = new Array<boolean>(gt.length).fill(true);
    const hypFree = new Array<boolean>(hyp.length).fill(true);
    gt.forEach((g, i) => {
      const kept = previous.get(g.id);
      if (kept === undefined) return;
      const j = hyp.findIndex((h, k) => hypFree[k] && h.id === kept);
      if (j < 0 || overlaps[i]![j]! < iouThreshold) return;
      gtFree[i] = false;
      hypFree[j] = false;
      match(g.id, hyp[j]!.id, overlaps[i]![j]!, current);
    });

    const rows = gt.flatMap((_, i) => (gtFree[i] ? [i] : []));
    const cols = hyp.flatMap((_, j) => (hypFree[j] ? [j] : []));
    const cost = rows.flatMap((i) =>
      cols.map((j) => (overlaps[i]![j]! >= iouThreshold ? 1 - overlaps[i]![j]! : Number.POSITIVE_INFINITY)),
    );
    // A limit above any sum of distances makes each extra pair worth more than any saving in distance.
    const limit = Math.min(rows.length, cols.length) + 1;
    const { rowToCol } = matchWithinCost(cost, rows.length, cols.length, limit);
    rowToCol.forEach((c, r) => {
      if (c < 0) return;
      const i = rows[r]!;
      const j = cols[c]!;
      match(gt[i]!.id, hyp[j]!.id, overlaps[i]![j]!, current);
    });
    previous = current;
  }

  function countTogether(gt: readonly MotObject[], hyp: readonly MotObject[], overlaps: number[][]) {
    for (const g of gt) gtLengths.set(g.id, (gtLengths.get(g.id) ?? 0) + 1);
    for (const h of hyp) hypLengths.set(h.id, (hypLengths.get(h.id) ?? 0) + 1);
    gt.forEach((g, i) => {
      hyp.forEach((h, j) => {
        if (overlaps[i]![j]! < iouThreshold) return;
        const row = together.get(g.id) ?? new Map<number, number>();
        together.set(g.id, row);
        row.set(h.id, (row.get(h.id) ?? 0) + 1);
      });
    });
  }

  function identityTruePositives(): number {
    const gtIds = [...gtLengths.keys()];
    const hypIds = [...hypLengths.keys()];
    const cost = gtIds.flatMap((g) => hypIds.map((h) => -(together.get(g)?.get(h) ?? 0)));
    const { rowToCol } = matchWithinCost(cost, gtIds.length, hypIds.length, 0);
    let idtp = 0;
    rowToCol.forEach((c, r) => {
      if (c >= 0) idtp -= cost[r * hypIds.length + c]!;
    });
    return idtp;
  }

  function summary(): MotSummary {
    const { frames, groundTruth, hypotheses, matches, idSwitches } = totals;
    const misses = groundTruth - matches;
    const falsePositives = hypotheses - matches;
    const idtp = identityTruePositives();
    return {
      frames,
      groundTruth,
      hypotheses,
      matches,
      misses,
      falsePositives,
      idSwitches,
      mota: groundTruth === 0 ? Number.NaN : 1 - (misses + falsePositives + idSwitches) / groundTruth,
      motp: matches === 0 ? Number.NaN : totals.overlap / matches,
      precision: matches / hypotheses,
      recall: matches / groundTruth,
      idtp,
      idfp: hypotheses - idtp,
      idfn: groundTruth - idtp,
      idf1: (2 * idtp) / (groundTruth + hypotheses),
      idPrecision: idtp / hypotheses,
      idRecall: idtp / groundTruth,
    };
  }

  return { add, summary };
}

/** Scores a whole sequence: one entry per frame, ground truth, hypotheses and what to ignore. */
export function evaluateMot(
  frames: readonly {
    groundTruth: readonly MotObject[];
    hypotheses: readonly MotObject[];
    ignored?: readonly Box[];
  }[],
  iouThreshold = 0.5,
): MotSummary {
  const accumulator = createMotAccumulator(iouThreshold);
  for (const frame of frames) accumulator.add(frame.groundTruth, frame.hypotheses, frame.ignored);
  return accumulator.summary();
}
