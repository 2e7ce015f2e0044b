import { describe, expect, it } from 'vitest';
import { evaluateVerification, trayTruth } from '../../../../appliance/vision/verify/evaluate.ts';

const result = (verified: boolean, missing: string[] = [], extra: string[] = []) => ({
  verified,
  missing_items: missing.map((name) => ({ name, quantity: 1 })),
  extra_items: extra.map((name) => ({ name, quantity: 1 })),
});
const one = (name: string, quantity = 1) => ({ name, quantity });

describe('evaluateVerification', () => {
  it('judges a tray by its contents against the order', () => {
    expect(trayTruth([one('Fries', 2)], [one('fries'), one('Fries')]).correct).toBe(true);
    const swap = trayTruth([one('Soda')], [one('Milkshake')]);
    expect([...swap.missing]).toEqual([['soda', 1]]);
    expect([...swap.extra]).toEqual([['milkshake', 1]]);
  });

  it('counts verdicts, missing recall and precision, false alarms and extras', () => {
    const metrics = evaluateVerification([
      // correct and verified
      { ordered: [one('Fries')], present: [one('Fries')], result: result(true) },
      // correct but flagged: a false alarm, a reported missing unit that is not
      { ordered: [one('Soda')], present: [one('Soda')], result: result(false, ['Soda']) },
      // two missing, one found; one extra found
      {
        ordered: [one('Fries', 2), one('Soda')],
        present: [one('Milkshake')],
        result: result(false, ['Fries', 'Soda'], ['Milkshake']),
      },
      // wrong but passed
      { ordered: [one('Fries')], present: [], result: result(true) },
    ]);
    expect(metrics.trays).toBe(4);
    expect(metrics.correctTrays).toBe(2);
    expect(metrics.verdictAccuracy).toBe(0.5);
    expect(metrics.falseAlarmRate).toBe(0.5);
    expect(metrics.passedWrongRate).toBe(0.5);
    expect(metrics.counts).toMatchObject({ missing: 4, missingFound: 2, missingReported: 3 });
    expect(metrics.missingRecall).toBe(0.5);
    expect(metrics.missingPrecision).toBeCloseTo(2 / 3);
    expect(metrics.extraRecall).toBe(1);
    expect(metrics.extraPrecision).toBe(1);
  });

  it('compares by a key of the caller’s, e.g. the class where items share one', () => {
    const keyOf = (name: string) => (name.toLowerCase().includes('soda') ? 'cup' : name);
    const metrics = evaluateVerification(
      [{ ordered: [one('Diet Soda')], present: [one('Soda')], result: result(true) }],
      { keyOf },
    );
    expect(metrics.verdictAccuracy).toBe(1);
  });
});
