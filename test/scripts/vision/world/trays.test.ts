import { describe, expect, it } from 'vitest';
import { assertTrainingSeed, yoloLine } from '../../../../scripts/vision/world/training.ts';
import { TRAY_ITEMS } from '../../../../scripts/vision/world/tray-items.ts';
import { generateTray, renderTray, TRAY_HEIGHT, TRAY_WIDTH } from '../../../../scripts/vision/world/trays.ts';

const RATES = { missing: 0.1, substituted: 0.15, extra: 0.2 };

describe('trays', () => {
  it('honours the error rates over many seeds', () => {
    let units = 0;
    let missing = 0;
    let present = 0;
    let substituted = 0;
    let extra = 0;
    const trays = 4000;
    for (let seed = 1; seed <= trays; seed++) {
      const { truth } = generateTray(seed, RATES);
      const ordered = truth.order.reduce((n, l) => n + l.quantity, 0);
      units += ordered;
      missing += truth.errors.missing.length;
      present += ordered - truth.errors.missing.length;
      substituted += truth.errors.substituted.length;
      extra += truth.errors.extra.length;
      expect(truth.items).toHaveLength(ordered - truth.errors.missing.length + truth.errors.extra.length);
      expect(truth.correct).toBe(
        truth.errors.missing.length + truth.errors.substituted.length + truth.errors.extra.length === 0,
      );
    }
    // Binomial tolerances of about four standard deviations.
    const within = (k: number, n: number, p: number) =>
      Math.abs(k / n - p) < 4 * Math.sqrt((p * (1 - p)) / n);
    expect(within(missing, units, RATES.missing)).toBe(true);
    expect(within(substituted, present, RATES.substituted)).toBe(true);
    expect(within(extra, trays, RATES.extra)).toBe(true);
  });

  it('lays items inside the image without overlapping each other', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const { items } = generateTray(seed, RATES).truth;
      for (const [i, a] of items.entries()) {
        expect(a.box[0]).toBeGreaterThanOrEqual(0);
        expect(a.box[1]).toBeGreaterThanOrEqual(0);
        expect(a.box[2]).toBeLessThanOrEqual(TRAY_WIDTH);
        expect(a.box[3]).toBeLessThanOrEqual(TRAY_HEIGHT);
        for (const b of items.slice(i + 1)) {
          const overlap =
            Math.min(a.box[2], b.box[2]) > Math.max(a.box[0], b.box[0]) &&
            Math.min(a.box[3], b.box[3]) > Math.max(a.box[1], b.box[1]);
          expect(overlap).toBe(false);
        }
      }
    }
  });

  it('renders the same tray for the same seed, with items where the truth says', async () => {
    const scene = generateTray(42, RATES);
    const a = await renderTray(scene);
    expect(a.equals(await renderTray(generateTray(42, RATES)))).toBe(true);
    expect(a.length).toBe(TRAY_WIDTH * TRAY_HEIGHT * 3);
    const empty = await renderTray({ ...scene, svg: scene.svg.replace(/<g transform=[\s\S]*?<\/g>/g, '') });
    for (const { box } of scene.truth.items) {
      const cx = Math.round((box[0] + box[2]) / 2);
      const cy = Math.round((box[1] + box[3]) / 2);
      const i = (cy * TRAY_WIDTH + cx) * 3;
      expect(
        Math.abs(a[i]! - empty[i]!) +
          Math.abs(a[i + 1]! - empty[i + 1]!) +
          Math.abs(a[i + 2]! - empty[i + 2]!),
      ).toBeGreaterThan(30);
    }
  });

  it('writes YOLO labels normalised to the image and keeps held-out seeds out of training', () => {
    expect(yoloLine(2, [64, 48, 192, 144], 640, 480)).toBe('2 0.200000 0.200000 0.200000 0.200000');
    expect(() => assertTrainingSeed(7)).toThrow(/held out/);
    expect(() => assertTrainingSeed(10_000)).not.toThrow();
    expect(TRAY_ITEMS).toContain('Classic Burger');
  });
});
