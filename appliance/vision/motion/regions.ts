import type { Box } from '../types.ts';

/**
 * Boxes around the 4-connected groups of changed cells in a small mask, in the source frame's
 * pixels. `labels` and `stack` are scratch arrays of the mask's size, reused between calls.
 */
export function changedRegions(
  mask: Uint8Array,
  grid: { width: number; height: number; cellWidth: number; cellHeight: number; minCells: number },
  scratch: { labels: Int32Array; stack: Int32Array },
): Box[] {
  const { width, height } = grid;
  const { labels, stack } = scratch;
  labels.fill(0);
  const regions: Box[] = [];
  let label = 0;
  for (let start = 0; start < mask.length; start += 1) {
    if (!mask[start] || labels[start]) continue;
    label += 1;
    let top = 0;
    stack[top++] = start;
    labels[start] = label;
    let [x1, y1, x2, y2, cells] = [width, height, 0, 0, 0];
    while (top > 0) {
      const at = stack[--top]!;
      const x = at % width;
      const y = (at - x) / width;
      cells += 1;
      x1 = Math.min(x1, x);
      y1 = Math.min(y1, y);
      x2 = Math.max(x2, x);
      y2 = Math.max(y2, y);
      for (const next of [x > 0 ? at - 1 : -1, x < width - 1 ? at + 1 : -1, at - width, at + width]) {
        if (next < 0 || next >= mask.length || !mask[next] || labels[next]) continue;
        labels[next] = label;
        stack[top++] = next;
      }
    }
    if (cells < grid.minCells) continue;
    regions.push([
      x1 * grid.cellWidth,
      y1 * grid.cellHeight,
      (x2 + 1) * grid.cellWidth,
      (y2 + 1) * grid.cellHeight,
    ]);
  }
  return regions;
}
