import { describe, expect, it } from 'vitest';
import { consensusDetections } from '../../../../appliance/vision/verify/consensus.ts';
import { createMenuMapping, resolveMenuMapping } from '../../../../appliance/vision/verify/mapping.ts';
import { makeDetection, seen } from './fixtures.ts';

const classesOf = (ds: ReturnType<typeof seen>) => ds.map((d) => d.className).sort();
const options = { minConfidence: 0.8, mapping: resolveMenuMapping() };

describe('consensusDetections', () => {
  it('keeps, per class, the median count over the frames', () => {
    const frames = [
      seen('Fries', 'Fries', 'Soda'),
      seen('Fries', 'Soda'),
      seen('Fries', 'Fries', 'Soda', 'Milkshake'),
    ];
    expect(classesOf(consensusDetections(frames, options))).toEqual(['Fries', 'Fries', 'Soda']);
  });

  it('takes the most confident frame of those that agree, doubtful detections of the class with it', () => {
    const strong = [makeDetection('Soda', 0.95), makeDetection('Soda', 0.5)];
    const frames = [[makeDetection('Soda', 0.85)], strong, []];
    expect(consensusDetections(frames, options)).toEqual(strong);
  });

  it('takes the lower median of an even number of frames', () => {
    expect(consensusDetections([seen('Fries'), []], options)).toEqual([]);
  });

  it('counts an object claimed by two classes in one frame once', () => {
    const box = [0, 0, 100, 100] as const;
    const frame = [makeDetection('Cheeseburger', 0.9, box), makeDetection('Classic Burger', 0.85, box)];
    expect(classesOf(consensusDetections([frame, frame, frame], options))).toEqual(['Cheeseburger']);
  });

  it('leaves out classes no menu item maps to, so they hide nothing', () => {
    const mapping = createMenuMapping({ Fries: 'Fries' });
    const frame = [
      makeDetection('Soda', 0.99, [0, 0, 100, 100]),
      makeDetection('Fries', 0.9, [2, 0, 102, 100]),
    ];
    expect(classesOf(consensusDetections([frame], { minConfidence: 0.8, mapping }))).toEqual(['Fries']);
  });

  it('reads no frames as nothing seen and one frame as itself', () => {
    expect(consensusDetections([], options)).toEqual([]);
    const one = seen('Fries', 'Soda');
    expect(classesOf(consensusDetections([one], options))).toEqual(['Fries', 'Soda']);
  });
});
