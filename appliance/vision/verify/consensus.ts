/**
 * One tray seen in several frames, read as one set of detections for `verifyOrder`. A detector
 * misses an item in a frame now and then (a hand, a glare, an odd angle); with one frame every
 * such miss is a false alarm on a correct order. Per class, the median count of confident
 * detections across the frames is kept, with the detections of a frame that saw that many (the
 * most confident such frame, its doubtful ones of the class too). Three frames turn a miss or a
 * spurious box that happens in one frame in a hundred into one in several thousand, as long as
 * frames err independently. Take an odd number; with an even one the lower median is taken,
 * because a missing item costs more than a second look.
 */
import type { Detection } from '../types.ts';
import { DEFAULT_DUPLICATE_IOU, distinctObjects, groupByClass } from './compare.ts';
import type { MenuMapping } from './mapping.ts';

export interface ConsensusOptions {
  /** Detections of classes no menu item maps to are left out, as `verifyOrder` would. */
  mapping: MenuMapping;
  minConfidence: number;
  duplicateIou?: number;
}

const confidentCount = (ds: readonly Detection[], min: number) =>
  ds.filter((d) => d.confidence >= min).length;
const totalConfidence = (ds: readonly Detection[]) => ds.reduce((s, d) => s + d.confidence, 0);

export function consensusDetections(
  frames: readonly (readonly Detection[])[],
  options: ConsensusOptions,
): Detection[] {
  if (frames.length === 0) return [];
  const overlap = options.duplicateIou ?? DEFAULT_DUPLICATE_IOU;
  const food = (d: Detection) => options.mapping.itemOf(d.className) !== undefined;
  const perFrame = frames.map((f) => groupByClass(distinctObjects(f.filter(food), 0, overlap)));
  const classes = new Set(perFrame.flatMap((f) => [...f.keys()]));
  const out: Detection[] = [];
  for (const key of classes) {
    const views = perFrame.map((f) => f.get(key) ?? []);
    const counts = views.map((v) => confidentCount(v, options.minConfidence)).sort((a, b) => a - b);
    const median = counts[Math.floor((counts.length - 1) / 2)]!;
    const agreeing = views.filter((v) => confidentCount(v, options.minConfidence) === median);
    const best = agreeing.reduce((a, b) => (totalConfidence(b) > totalConfidence(a) ? b : a));
    out.push(...best);
  }
  return out;
}
