import { describe, expect, it } from 'vitest';
import { evaluateMot, type MotObject } from '../../../../appliance/vision/track/mot-metrics.ts';
import type { Box } from '../../../../appliance/vision/types.ts';
import { boxAt } from './synthetic.ts';

const A: Box = boxAt(0, 0, 100, 100);
const B: Box = boxAt(500, 0, 100, 100);
const C: Box = boxAt(0, 500, 100, 100);
const at = (id: number, box: Box): MotObject => ({ id, box });

/** One ground-truth object at A for `frames` frames, tracked by the hypothesis id `hypothesisOf(frame)` (none when undefined). */
function oneObject(frames: number, hypothesisOf: (frame: number) => number | undefined) {
  return Array.from({ length: frames }, (_, f) => {
    const id = hypothesisOf(f);
    return { groundTruth: [at(1, A)], hypotheses: id === undefined ? [] : [at(id, A)] };
  });
}

describe('MOT metrics', () => {
  it('scores perfect tracking 1, whatever the hypotheses are numbered', () => {
    const frames = Array.from({ length: 5 }, () => ({
      groundTruth: [at(1, A), at(2, B)],
      hypotheses: [at(20, B), at(10, A)],
    }));
    const summary = evaluateMot(frames);
    expect(summary).toMatchObject({ mota: 1, motp: 1, idf1: 1, idSwitches: 0, misses: 0, falsePositives: 0 });
    expect(summary).toMatchObject({ groundTruth: 10, idtp: 10, idfp: 0, idfn: 0 });
  });

  it('counts a change of identity once, and scores the fragmented trajectory by its longer part', () => {
    // Hypothesis 7 for 4 frames, then 8 for 6: one switch; IDF1 pairs the object with 8 (6 IDTP),
    // so IDFN = 4, IDFP = 4 and IDF1 = 12 / 20.
    const summary = evaluateMot(oneObject(10, (f) => (f < 4 ? 7 : 8)));
    expect(summary).toMatchObject({ idSwitches: 1, misses: 0, falsePositives: 0, idtp: 6, idfp: 4, idfn: 4 });
    expect(summary.mota).toBeCloseTo(0.9, 12);
    expect(summary.idf1).toBeCloseTo(0.6, 12);
  });

  it('counts a switch away and a switch back as two', () => {
    const summary = evaluateMot(oneObject(10, (f) => (f >= 4 && f < 6 ? 8 : 7)));
    expect(summary.idSwitches).toBe(2);
    expect(summary.mota).toBeCloseTo(0.8, 12);
    expect(summary.idf1).toBeCloseTo(16 / 20, 12);
  });

  it('counts a missed object, and no switch when the same hypothesis comes back after the gap', () => {
    const summary = evaluateMot(oneObject(10, (f) => (f === 3 || f === 4 ? undefined : 7)));
    expect(summary).toMatchObject({ misses: 2, idSwitches: 0, falsePositives: 0, idtp: 8, idfn: 2, idfp: 0 });
    expect(summary.mota).toBeCloseTo(0.8, 12);
    expect(summary.idf1).toBeCloseTo(16 / 18, 12);
  });

  it('counts a switch when another hypothesis takes the object after a gap', () => {
    const summary = evaluateMot(oneObject(10, (f) => (f < 3 ? 7 : f < 5 ? undefined : 8)));
    expect(summary).toMatchObject({ misses: 2, idSwitches: 1 });
    expect(summary.mota).toBeCloseTo(0.7, 12);
  });

  it('counts a false positive, and a hypothesis too far off as both a miss and a false positive', () => {
    const frames = oneObject(4, () => 7);
    frames[1]!.hypotheses.push(at(9, C));
    frames[2]!.hypotheses[0] = at(7, boxAt(60, 0, 100, 100)); // IoU 40/160 = 0.25
    const summary = evaluateMot(frames);
    expect(summary).toMatchObject({ misses: 1, falsePositives: 2, idSwitches: 0, matches: 3 });
    expect(summary.mota).toBeCloseTo(1 - 3 / 4, 12);
    expect(summary.idtp).toBe(3);
    expect(summary.idf1).toBeCloseTo(6 / 9, 12);
  });

  it('keeps the previous frame’s pair while it still overlaps enough, even when another fits better', () => {
    const shifted = boxAt(20, 0, 100, 100); // IoU with A: 80/120 ≈ 0.67
    const frames = [
      { groundTruth: [at(1, A)], hypotheses: [at(7, A)] },
      { groundTruth: [at(1, A)], hypotheses: [at(7, shifted), at(8, A)] },
    ];
    const summary = evaluateMot(frames);
    expect(summary).toMatchObject({ idSwitches: 0, falsePositives: 1, matches: 2 });
    expect(summary.motp).toBeCloseTo((1 + 80 / 120) / 2, 12);
  });

  it('counts two switches when two objects swap hypotheses', () => {
    const frames = Array.from({ length: 6 }, (_, f) => ({
      groundTruth: [at(1, A), at(2, B)],
      hypotheses: f < 3 ? [at(7, A), at(8, B)] : [at(8, A), at(7, B)],
    }));
    const summary = evaluateMot(frames);
    expect(summary.idSwitches).toBe(2);
    expect(summary.mota).toBeCloseTo(1 - 2 / 12, 12);
    expect(summary.idf1).toBeCloseTo(0.5, 12);
  });

  it('pairs trajectories globally for IDF1, where taking the largest overlap first would not', () => {
    // Object 1 (10 frames): hypothesis 7 in frames 0–5, 8 in 6–9. Object 2 (frames 10–14): 7.
    // Greedy: 1↔7 (6) and nothing for 2 → 6. Optimal: 1↔8 (4) + 2↔7 (5) = 9; IDF1 = 18 / 30.
    const frames = Array.from({ length: 15 }, (_, f) => {
      if (f >= 10) return { groundTruth: [at(2, B)], hypotheses: [at(7, B)] };
      return { groundTruth: [at(1, A)], hypotheses: [at(f < 6 ? 7 : 8, A)] };
    });
    const summary = evaluateMot(frames);
    expect(summary).toMatchObject({ idtp: 9, idfn: 6, idfp: 6, idSwitches: 1 });
    expect(summary.idf1).toBeCloseTo(0.6, 12);
    expect(summary.mota).toBeCloseTo(1 - 1 / 15, 12);
  });

  it('prefers more matches to a smaller total distance within a frame', () => {
    // Hypothesis 7 is object 1's box and overlaps object 2 by 71/129; 8 overlaps only object 1, by
    // 71/129. Pairing 7 with 1 alone is closer; pairing 7–2 and 8–1 matches both.
    const frames = [
      {
        groundTruth: [at(1, boxAt(0, 0, 100, 100)), at(2, boxAt(29, 0, 100, 100))],
        hypotheses: [at(7, boxAt(0, 0, 100, 100)), at(8, boxAt(-29, 0, 100, 100))],
      },
    ];
    expect(evaluateMot(frames)).toMatchObject({ matches: 2, misses: 0, falsePositives: 0 });
  });

  it('drops hypotheses on ignored objects before scoring, and counts ignored objects as nothing', () => {
    const frames = oneObject(4, () => 7).map((frame, f) => ({
      ...frame,
      hypotheses: f < 2 ? [...frame.hypotheses, at(9, boxAt(4, 500, 100, 100))] : frame.hypotheses,
      ignored: [C],
    }));
    const summary = evaluateMot(frames);
    expect(summary).toMatchObject({
      groundTruth: 4,
      hypotheses: 4,
      falsePositives: 0,
      misses: 0,
      mota: 1,
      idf1: 1,
    });
  });
});
