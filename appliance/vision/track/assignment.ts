/**
 * Linear assignment (the Hungarian method with row and column potentials, in the shortest
 * augmenting path form of Jonker and Volgenant): the tracker's association and the MOT metrics'
 * matching both use it. Matrices are row-major, `rows × cols`; scratch space is kept between calls,
 * so a call allocates only its answer (calls are synchronous, so sharing it is safe).
 */

export interface Matching {
  /** The column each row is matched to, or -1. */
  rowToCol: Int32Array;
  /** The row each column is matched to, or -1. */
  colToRow: Int32Array;
}

let scratch = new Float64Array(64);
let u = new Float64Array(16);
let v = new Float64Array(16);
let minv = new Float64Array(16);
let owner = new Int32Array(16);
let way = new Int32Array(16);
let used = new Uint8Array(16);

function reserve(cells: number, side: number) {
  if (scratch.length < cells) scratch = new Float64Array(cells * 2);
  if (u.length >= side) return;
  const size = side * 2;
  u = new Float64Array(size);
  v = new Float64Array(size);
  minv = new Float64Array(size);
  owner = new Int32Array(size);
  way = new Int32Array(size);
  used = new Uint8Array(size);
}

/**
 * Assigns every one of `n` rows of `a` (row-major, `n × m`, n ≤ m, finite) to a distinct column at
 * the least total cost; answers through `owner` (column j + 1 → row + 1, 0 when free).
 */
function hungarian(a: Float64Array, n: number, m: number) {
  u.fill(0, 0, n + 1);
  v.fill(0, 0, m + 1);
  owner.fill(0, 0, m + 1);
  for (let i = 1; i <= n; i++) {
    owner[0] = i;
    let j0 = 0;
    minv.fill(Number.POSITIVE_INFINITY, 0, m + 1);
    used.fill(0, 0, m + 1);
    do {
      used[j0] = 1;
      const i0 = owner[j0]!;
      const row = (i0 - 1) * m;
      let delta = Number.POSITIVE_INFINITY;
      let j1 = 0;
      for (let j = 1; j <= m; j++) {
        if (used[j]) continue;
        const reduced = a[row + j - 1]! - u[i0]! - v[j]!;
        if (reduced < minv[j]!) {
          minv[j] = reduced;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (used[j]) {
          u[owner[j]!]! += delta;
          v[j]! -= delta;
        } else {
          minv[j]! -= delta;
        }
      }
      j0 = j1;
    } while (owner[j0] !== 0);
    do {
      const j1 = way[j0]!;
      owner[j0] = owner[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
}

/**
 * Pairs rows with columns so that the sum of `cost − maxCost` over the pairs is least: a pair
 * costing `maxCost` or more (or not finite) is never made, and a cheap pair is not given up to make
 * two dear ones. This is what lapjv with `cost_limit` does for ByteTrack; with a `maxCost` larger
 * than every finite cost times the smaller side, it is the cheapest matching of the most pairs.
 */
export function matchWithinCost(
  cost: ArrayLike<number>,
  rows: number,
  cols: number,
  maxCost: number,
): Matching {
  const rowToCol = new Int32Array(rows).fill(-1);
  const colToRow = new Int32Array(cols).fill(-1);
  if (rows === 0 || cols === 0) return { rowToCol, colToRow };
  const transposed = rows > cols;
  const n = transposed ? cols : rows;
  const m = transposed ? rows : cols;
  reserve(n * m, m + 1);
  // A pair that is not worth making weighs 0, as leaving both sides free does; any full assignment
  // of the smaller side then reads as a partial matching of the same weight.
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      const c = transposed ? cost[j * cols + i]! : cost[i * cols + j]!;
      scratch[i * m + j] = c < maxCost ? c - maxCost : 0;
    }
  }
  hungarian(scratch, n, m);
  for (let j = 1; j <= m; j++) {
    const i = owner[j]! - 1;
    if (i < 0 || scratch[i * m + j - 1]! >= 0) continue;
    const row = transposed ? j - 1 : i;
    const col = transposed ? i : j - 1;
    rowToCol[row] = col;
    colToRow[col] = row;
  }
  return { rowToCol, colToRow };
}

/** The least-cost assignment of the smaller side of a finite `rows × cols` matrix; -1 where a row is free. */
export function solveAssignment(cost: ArrayLike<number>, rows: number, cols: number): Int32Array {
  const rowToCol = new Int32Array(rows).fill(-1);
  if (rows === 0 || cols === 0) return rowToCol;
  const transposed = rows > cols;
  const n = transposed ? cols : rows;
  const m = transposed ? rows : cols;
  reserve(n * m, m + 1);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) scratch[i * m + j] = transposed ? cost[j * cols + i]! : cost[i * cols + j]!;
  }
  hungarian(scratch, n, m);
  for (let j = 1; j <= m; j++) {
    const i = owner[j]! - 1;
    if (i < 0) continue;
    if (transposed) rowToCol[j - 1] = i;
    else rowToCol[i] = j - 1;
  }
  return rowToCol;
}
