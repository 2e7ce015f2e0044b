import type { Box, Detection } from '../../../../appliance/vision/types.ts';
import { TRAY_CLASSES } from '../../../../appliance/vision/verify/mapping.ts';

let column = 0;

/** A detection in a box of its own (side by side, never overlapping), unless one is given. */
export function makeDetection(className: string, confidence = 0.9, box?: Box): Detection {
  column += 1;
  return {
    box: box ?? [column * 120, 10, column * 120 + 100, 110],
    classId: Math.max(0, TRAY_CLASSES.indexOf(className)),
    className,
    confidence,
  };
}

export const seen = (...classes: string[]) => classes.map((c) => makeDetection(c));
