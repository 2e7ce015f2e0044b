/**
 * Verification on held-out synthetic trays (seeds below TRAINING_SEED_FLOOR), the tray generator's
 * truth boxes standing in for a detector: once perfect, once noisy (a true item dropped now and
 * then, a doubtful box of a random class, confidences jittered). Only the truth is generated, not
 * the images, so the check is fast; the acceptance bars are the same the real model will be held to.
 */
import { describe, expect, it } from 'vitest';
import type { Box, Detection } from '../../../../appliance/vision/types.ts';
import { verifyOrder } from '../../../../appliance/vision/verify/compare.ts';
import { consensusDetections } from '../../../../appliance/vision/verify/consensus.ts';
import { evaluateVerification, type VerificationCase } from '../../../../appliance/vision/verify/evaluate.ts';
import { resolveMenuMapping, TRAY_CLASSES } from '../../../../appliance/vision/verify/mapping.ts';
import { createRng } from '../../../../scripts/vision/world/rng.ts';
import { TRAINING_SEED_FLOOR } from '../../../../scripts/vision/world/training.ts';
import { generateTray, type TrayTruth } from '../../../../scripts/vision/world/trays.ts';

const SEEDS = Array.from({ length: 4000 }, (_, i) => 1 + i);
const MIN_CONFIDENCE = 0.8;
const mapping = resolveMenuMapping();

const TRUTHS = SEEDS.map((seed) => generateTray(seed).truth);

type Detect = (truth: TrayTruth) => Detection[];

const detection = (className: string, box: Box, confidence: number): Detection => ({
  box,
  classId: TRAY_CLASSES.indexOf(className),
  className,
  confidence,
});

const perfect: Detect = (truth) => truth.items.map((i) => detection(i.item, i.box, 0.9));

const NOISE = { drop: 0.005, spurious: 0.02, jitter: 0.05 };

function noisyFrame(truth: TrayTruth, frame: number): Detection[] {
  const rng = createRng(truth.meta.seed, `verify-noise-${frame}`);
  const out = truth.items
    .filter(() => !rng.chance(NOISE.drop))
    .map((i) => detection(i.item, i.box, 0.9 + rng.range(-NOISE.jitter, NOISE.jitter)));
  if (rng.chance(NOISE.spurious)) {
    const [x, y, side] = [rng.range(60, 480), rng.range(60, 320), rng.range(60, 100)];
    out.push(detection(rng.pick(TRAY_CLASSES), [x, y, x + side, y + side], rng.range(0.3, 0.6)));
  }
  return out;
}

const noisy: Detect = (truth) => noisyFrame(truth, 0);

/** Three frames of the same tray, each with noise of its own. */
const noisyThreeFrames: Detect = (truth) =>
  consensusDetections(
    [0, 1, 2].map((f) => noisyFrame(truth, f)),
    { minConfidence: MIN_CONFIDENCE, mapping },
  );

interface Tray extends VerificationCase {
  /** The generator's own verdict: no error was made, even one another made up for. */
  flaggedCorrect: boolean;
}

function run(detect: Detect): Tray[] {
  return TRUTHS.map((truth) => {
    const ordered = truth.order.map((l) => ({ name: l.item, quantity: l.quantity }));
    const present = truth.items.map((i) => ({ name: i.item, quantity: 1 }));
    const result = verifyOrder({
      expected: ordered,
      detections: detect(truth),
      mapping,
      minConfidence: MIN_CONFIDENCE,
    });
    return { ordered, present, result, flaggedCorrect: truth.correct };
  });
}

describe('order verification on held-out trays', () => {
  it('uses held-out seeds only', () => {
    expect(Math.max(...SEEDS)).toBeLessThan(TRAINING_SEED_FLOOR);
  });

  for (const [name, detect] of [
    ['perfect', perfect],
    ['noisy', noisy],
    ['noisy three-frame', noisyThreeFrames],
  ] as const) {
    it(`meets the acceptance bars with a ${name} detector`, () => {
      const trays = run(detect);
      const m = evaluateVerification(trays);
      expect(m.correctTrays).toBeGreaterThan(1000);
      expect(m.counts.missing).toBeGreaterThan(500);
      expect(m.verdictAccuracy).toBeGreaterThanOrEqual(0.97);
      expect(m.missingRecall).toBeGreaterThanOrEqual(0.98);
      expect(m.falseAlarmRate).toBeLessThanOrEqual(0.02);
      expect(m.extraRecall).toBeGreaterThanOrEqual(0.98);
      expect(m.extraPrecision).toBeGreaterThanOrEqual(0.98);
      // Judged by the generator's flag instead, trays whose errors cancel out count against us.
      const agree = trays.filter((t) => t.flaggedCorrect === t.result.verified).length;
      expect(agree / trays.length).toBeGreaterThanOrEqual(0.97);
    });
  }
});
