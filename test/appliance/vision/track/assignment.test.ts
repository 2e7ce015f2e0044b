import { describe, expect, it } from 'vitest';
import { matchWithinCost, solveAssignment } from '../../../../appliance/vision/track/assignment.ts';
import { seededRandom } from './synthetic.ts';

/** Every partial matching of a small matrix, scored as matchWithinCost scores it. */
function bestByBruteForce(cost: number[], rows: number, cols: number, maxCost: number): number {
  let best = 0;
  const takenCols = new Array<boolean>(cols).fill(false);
  const visit = (row: number, sum: number) => {
    if (row === rows) {
      best = Math.min(best, sum);
      return;
    }
    visit(row + 1, sum);
    for (let col = 0; col < cols; col++) {
      const c = cost[row * cols + col]!;
      if (takenCols[col] || !(c < maxCost)) continue;
      takenCols[col] = true;
      visit(row + 1, sum + c - maxCost);
      takenCols[col] = false;
    }
  };
  visit(0, 0);
  return best;
}

function scoreOf(cost: number[], cols: number, rowToCol: Int32Array, maxCost: number) {
  let sum = 0;
  rowToCol.forEach((col, row) => {
    if (col >= 0) sum += cost[row * cols + col]! - maxCost;
  });
  return sum;
}

describe('linear assignment', () => {
  it('finds the least-cost full assignment of a square matrix', () => {
    const cost = [4, 1, 3, 2, 0, 5, 3, 2, 2];
    expect([...solveAssignment(cost, 3, 3)]).toEqual([1, 0, 2]);
  });

  it('assigns the smaller side of a rectangular matrix, either way round', () => {
    expect([...solveAssignment([9, 1, 9, 9, 9, 2], 2, 3)]).toEqual([1, 2]);
    expect([...solveAssignment([9, 9, 1, 9, 9, 2], 3, 2)]).toEqual([-1, 0, 1]);
  });

  it('leaves pairs at or over the limit unmatched, and keeps a cheap pair rather than two dear ones', () => {
    // a–x 0.1, a–y 0.75, b–x 0.75: making two pairs costs 1.5 − 1.6; one cheap pair costs 0.1 − 0.8.
    const cost = [0.1, 0.75, 0.75, 0.9];
    const { rowToCol, colToRow } = matchWithinCost(cost, 2, 2, 0.8);
    expect([...rowToCol]).toEqual([0, -1]);
    expect([...colToRow]).toEqual([0, -1]);
    expect([...matchWithinCost([0.8, Number.POSITIVE_INFINITY], 1, 2, 0.8).rowToCol]).toEqual([-1]);
  });

  it('answers empty matchings for an empty side', () => {
    expect(matchWithinCost([], 0, 3, 1).colToRow).toEqual(new Int32Array([-1, -1, -1]));
    expect(solveAssignment([], 2, 0)).toEqual(new Int32Array([-1, -1]));
  });

  it('agrees with brute force on random matrices', () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 300; trial++) {
      const rows = 1 + Math.floor(random() * 5);
      const cols = 1 + Math.floor(random() * 5);
      const cost = Array.from({ length: rows * cols }, () =>
        random() < 0.15 ? Number.POSITIVE_INFINITY : Math.round(random() * 100) / 100,
      );
      const maxCost = 0.3 + random() * 0.8;
      const { rowToCol, colToRow } = matchWithinCost(cost, rows, cols, maxCost);
      expect(scoreOf(cost, cols, rowToCol, maxCost)).toBeCloseTo(
        bestByBruteForce(cost, rows, cols, maxCost),
        9,
      );
      rowToCol.forEach((col, row) => {
        if (col >= 0) expect(colToRow[col]).toBe(row);
      });
    }
  });
});
