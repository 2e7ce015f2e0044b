import { describe, expect, it } from 'vitest';
import { verifyOrder } from '../../../../appliance/vision/verify/compare.ts';
import { createMenuMapping, resolveMenuMapping } from '../../../../appliance/vision/verify/mapping.ts';
import { makeDetection, seen } from './fixtures.ts';

const mapping = resolveMenuMapping();
const verify = (
  expected: Array<{ name: string; quantity: number }>,
  detections: ReturnType<typeof seen>,
  minConfidence = 0.8,
) => verifyOrder({ expected, detections, mapping, minConfidence });

describe('verifyOrder', () => {
  it('verifies a tray holding exactly the order', () => {
    const result = verify(
      [
        { name: 'Cheeseburger', quantity: 1 },
        { name: 'Fries', quantity: 2 },
      ],
      seen('Fries', 'Cheeseburger', 'Fries'),
    );
    expect(result.verified).toBe(true);
    expect(result.missing_items).toEqual([]);
    expect(result.extra_items).toEqual([]);
    expect(result.detections.map((d) => `${d.name}:${d.matched}`).sort()).toEqual([
      'Cheeseburger:true',
      'Fries:true',
      'Fries:true',
    ]);
  });

  it('reports a missing item', () => {
    const result = verify(
      [
        { name: 'Soda', quantity: 1 },
        { name: 'Fries', quantity: 1 },
      ],
      seen('Soda'),
    );
    expect(result.verified).toBe(false);
    expect(result.missing_items).toEqual([{ name: 'Fries', quantity: 1 }]);
    expect(result.extra_items).toEqual([]);
  });

  it('reports an extra item, unmatched', () => {
    const result = verify([{ name: 'Soda', quantity: 1 }], seen('Soda', 'Milkshake'));
    expect(result.verified).toBe(false);
    expect(result.extra_items).toEqual([{ name: 'Milkshake', quantity: 1 }]);
    expect(result.detections.find((d) => d.name === 'Milkshake')?.matched).toBe(false);
  });

  it('reads a substitution as one missing and one extra', () => {
    const result = verify([{ name: 'Classic Burger', quantity: 1 }], seen('Cheeseburger'));
    expect(result.missing_items).toEqual([{ name: 'Classic Burger', quantity: 1 }]);
    expect(result.extra_items).toEqual([{ name: 'Cheeseburger', quantity: 1 }]);
  });

  it('counts quantities: too few and too many of the same item', () => {
    const few = verify([{ name: 'Fries', quantity: 3 }], seen('Fries'));
    expect(few.missing_items).toEqual([{ name: 'Fries', quantity: 2 }]);
    const many = verify([{ name: 'Fries', quantity: 1 }], seen('Fries', 'Fries', 'Fries'));
    expect(many.extra_items).toEqual([{ name: 'Fries', quantity: 2 }]);
  });

  it('matches the strongest detections up to the quantity', () => {
    const result = verify(
      [{ name: 'Soda', quantity: 1 }],
      [makeDetection('Soda', 0.85), makeDetection('Soda', 0.97)],
    );
    expect(result.detections.map((d) => [d.confidence, d.matched])).toEqual([
      [0.97, true],
      [0.85, false],
    ]);
  });

  it('leaves an item without a class out of the verdict and lists it as unverifiable', () => {
    const result = verify(
      [
        { name: 'Fries', quantity: 1 },
        { name: 'Apple Pie', quantity: 2 },
      ],
      seen('Fries'),
    );
    expect(result.verified).toBe(true);
    expect(result.unverifiable).toEqual([{ name: 'Apple Pie', quantity: 2 }]);
    expect(result.missing_items).toEqual([]);
  });

  it('ignores detections below min_confidence, listing the doubtful ones as uncertain', () => {
    const result = verify(
      [{ name: 'Fries', quantity: 1 }],
      [makeDetection('Fries', 0.6), makeDetection('Soda', 0.7), makeDetection('Milkshake', 0.2)],
    );
    expect(result.verified).toBe(false);
    expect(result.missing_items).toEqual([{ name: 'Fries', quantity: 1 }]);
    expect(result.extra_items).toEqual([]);
    expect(result.uncertain).toEqual([
      { name: 'Soda', quantity: 1 },
      { name: 'Fries', quantity: 1 },
    ]);
    expect(result.detections.map((d) => [d.name, d.matched, d.uncertain])).toEqual([
      ['Soda', false, true],
      ['Fries', false, true],
    ]);
  });

  it('compares names regardless of case and spacing, and merges lines of one item', () => {
    const result = verify(
      [
        { name: '  onion   RINGS ', quantity: 1 },
        { name: 'Onion Rings', quantity: 1 },
      ],
      seen('onion rings', 'Onion Rings'),
    );
    expect(result.verified).toBe(true);
    expect(result.detections.every((d) => d.name === 'onion RINGS')).toBe(true);
  });

  it('counts one object once when two classes claim the same box', () => {
    const box = [10, 10, 110, 110] as const;
    const result = verify(
      [{ name: 'Cheeseburger', quantity: 1 }],
      [makeDetection('Cheeseburger', 0.93, box), makeDetection('Classic Burger', 0.84, [12, 10, 112, 110])],
    );
    expect(result.verified).toBe(true);
    expect(result.detections).toHaveLength(1);
  });

  it('ignores classes no menu item maps to', () => {
    const narrow = createMenuMapping({ Fries: 'Fries' });
    const result = verifyOrder({
      expected: [{ name: 'Fries', quantity: 1 }],
      detections: seen('Fries', 'Soda'),
      mapping: narrow,
      minConfidence: 0.8,
    });
    expect(result.verified).toBe(true);
    expect(result.detections).toHaveLength(1);
    const hand = makeDetection('Soda', 0.99, [0, 0, 100, 100]);
    const under = verifyOrder({
      expected: [{ name: 'Fries', quantity: 1 }],
      detections: [hand, makeDetection('Fries', 0.9, [2, 0, 102, 100])],
      mapping: narrow,
      minConfidence: 0.8,
    });
    expect(under.verified).toBe(true);
  });

  it('shares one class between items, a shortfall reported against the later line', () => {
    const cups = createMenuMapping({ Soda: 'Soda', 'Diet Soda': 'Soda' });
    const result = verifyOrder({
      expected: [
        { name: 'Soda', quantity: 1 },
        { name: 'Diet Soda', quantity: 1 },
      ],
      detections: seen('Soda'),
      mapping: cups,
      minConfidence: 0.8,
    });
    expect(result.missing_items).toEqual([{ name: 'Diet Soda', quantity: 1 }]);
    const extra = verifyOrder({ expected: [], detections: seen('Soda'), mapping: cups, minConfidence: 0.8 });
    expect(extra.extra_items).toEqual([{ name: 'Soda', quantity: 1 }]);
  });

  it('verifies an empty order on an empty tray and refuses a bad quantity', () => {
    expect(verify([], []).verified).toBe(true);
    expect(verify([{ name: 'Fries', quantity: 0 }], []).verified).toBe(true);
    expect(() => verify([{ name: 'Fries', quantity: 1.5 }], [])).toThrow(/whole number/);
  });
});
