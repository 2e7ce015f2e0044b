/**
 * An order's items against what the pickup camera saw on the tray, counted per model class.
 *
 * - A detection counts when its confidence is at least `minConfidence`. One between
 *   `uncertainFloor` and `minConfidence` changes nothing in the verdict: it is reported with
 *   `uncertain: true` and in `uncertain`, so staff can be told "Fries missing (maybe seen)".
 *   Letting it fill a missing unit would hide real misses behind every doubtful box; letting it
 *   count as extra would raise false alarms on boxes the model itself doubts.
 * - Boxes overlapping by more than `duplicateIou` are one object whatever their classes (the
 *   decoder suppresses overlaps within a class only): the strongest stands, the others go.
 * - Per class, the strongest detections up to the ordered quantity are matched; units left are
 *   missing, detections left are extra. A substitution therefore reads as one missing and one extra.
 * - Items sharing a class are matched in the order's order, so a shortfall is reported against the
 *   later lines of that class; the camera cannot tell those items apart.
 * - An ordered item with no class is left out of the verdict and listed in `unverifiable`; it is
 *   never reported missing, because nothing could have seen it.
 * - Detections of classes no menu item maps to (not food) are dropped first, so a hand or a bag
 *   overlapping an item cannot hide it.
 */
import { type Box, type Detection, iou } from '../types.ts';
import { type MenuMapping, normaliseName } from './mapping.ts';

export interface ItemCount {
  name: string;
  quantity: number;
}

export interface DetectionRecord {
  /** The menu item the detection is read as. */
  name: string;
  confidence: number;
  matched: boolean;
  /** Below `minConfidence`: shown, never counted. */
  uncertain: boolean;
  className: string;
  box: Box;
}

export interface OrderVerification {
  verified: boolean;
  /** Strongest first. */
  detections: DetectionRecord[];
  missing_items: ItemCount[];
  extra_items: ItemCount[];
  /** Ordered items the camera cannot check (no class in the mapping). */
  unverifiable: ItemCount[];
  /** Items seen below `minConfidence` and not counted. */
  uncertain: ItemCount[];
}

export interface VerifyOrderInput {
  expected: readonly ItemCount[];
  detections: readonly Detection[];
  mapping: MenuMapping;
  /** The camera's `min_confidence`. */
  minConfidence: number;
  /** Below this a detection is noise and not reported at all; defaults to half of `minConfidence`. */
  uncertainFloor?: number;
  duplicateIou?: number;
}

export const DEFAULT_DUPLICATE_IOU = 0.7;

interface Line {
  name: string;
  quantity: number;
  className?: string | undefined;
}

function orderLines(expected: readonly ItemCount[], mapping: MenuMapping): Line[] {
  const lines = new Map<string, Line>();
  for (const { name, quantity } of expected) {
    if (!Number.isInteger(quantity) || quantity < 0)
      throw new RangeError(`quantity of "${name}" must be a whole number ≥ 0, not ${quantity}`);
    const key = normaliseName(name);
    const line = lines.get(key);
    if (line) line.quantity += quantity;
    else
      lines.set(key, { name: name.trim().replace(/\s+/g, ' '), quantity, className: mapping.classOf(name) });
  }
  return [...lines.values()].filter((l) => l.quantity > 0);
}

/** One box per object: the strongest of boxes overlapping by more than `overlap` stands, whatever its class. */
export function distinctObjects(
  detections: readonly Detection[],
  floor: number,
  overlap: number,
): Detection[] {
  const kept: Detection[] = [];
  const strongestFirst = detections
    .filter((d) => d.confidence >= floor)
    .sort((a, b) => b.confidence - a.confidence);
  for (const d of strongestFirst) {
    if (!kept.some((k) => iou(k.box, d.box) > overlap)) kept.push(d);
  }
  return kept;
}

/** Detections by normalised class name, in the order given. */
export function groupByClass(detections: readonly Detection[]): Map<string, Detection[]> {
  const groups = new Map<string, Detection[]>();
  for (const d of detections) {
    const key = normaliseName(d.className);
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  return groups;
}

function addCount(counts: ItemCount[], name: string, quantity: number): void {
  const entry = counts.find((c) => normaliseName(c.name) === normaliseName(name));
  if (entry) entry.quantity += quantity;
  else counts.push({ name, quantity });
}

const record = (d: Detection, name: string, matched: boolean, uncertain: boolean): DetectionRecord => ({
  name,
  confidence: d.confidence,
  matched,
  uncertain,
  className: d.className,
  box: d.box,
});

/** Per class, the strongest detections up to each line's quantity; the rest of the class is extra. */
function matchLines(
  lines: readonly Line[],
  confident: readonly Detection[],
  nameFor: (className: string) => string,
  result: OrderVerification,
): void {
  // Strongest first within each class, as distinctObjects sorted them.
  const byClass = groupByClass(confident);
  for (const line of lines) {
    if (line.className === undefined) continue;
    const pool = byClass.get(normaliseName(line.className)) ?? [];
    const taken = pool.splice(0, line.quantity);
    for (const d of taken) result.detections.push(record(d, line.name, true, false));
    if (taken.length < line.quantity) addCount(result.missing_items, line.name, line.quantity - taken.length);
  }
  for (const d of [...byClass.values()].flat()) {
    result.detections.push(record(d, nameFor(d.className), false, false));
    addCount(result.extra_items, nameFor(d.className), 1);
  }
}

export function verifyOrder(input: VerifyOrderInput): OrderVerification {
  const { mapping, minConfidence } = input;
  const lines = orderLines(input.expected, mapping);
  const food = input.detections.filter((d) => mapping.itemOf(d.className) !== undefined);
  const seen = distinctObjects(
    food,
    input.uncertainFloor ?? minConfidence / 2,
    input.duplicateIou ?? DEFAULT_DUPLICATE_IOU,
  );
  const result: OrderVerification = {
    verified: false,
    detections: [],
    missing_items: [],
    extra_items: [],
    unverifiable: [],
    uncertain: [],
  };
  for (const line of lines)
    if (line.className === undefined) addCount(result.unverifiable, line.name, line.quantity);

  // A detection is read as the item ordered of its class when there is one, else as the mapping's.
  const nameFor = (className: string) =>
    lines.find((l) => l.className !== undefined && normaliseName(l.className) === normaliseName(className))
      ?.name ?? mapping.itemOf(className)!;
  matchLines(
    lines,
    seen.filter((d) => d.confidence >= minConfidence),
    nameFor,
    result,
  );
  for (const d of seen.filter((s) => s.confidence < minConfidence)) {
    result.detections.push(record(d, nameFor(d.className), false, true));
    addCount(result.uncertain, nameFor(d.className), 1);
  }
  result.detections.sort((a, b) => b.confidence - a.confidence);
  result.verified = result.missing_items.length === 0 && result.extra_items.length === 0;
  return result;
}
