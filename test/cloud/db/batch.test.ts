import { describe, expect, it } from 'vitest';
import { createBatchLoader } from '../../../cloud/db/batch.ts';

describe('batch loader', () => {
  const rows = new Map([
    ['a', { id: 'a', v: 1 }],
    ['b', { id: 'b', v: 2 }],
  ]);

  it('answers the lookups of one event-loop turn with one read of the distinct keys', async () => {
    const reads: string[][] = [];
    const load = createBatchLoader({
      load: async (keys: string[]) => {
        reads.push(keys);
        return keys.flatMap((k) => (rows.has(k) ? [rows.get(k)!] : []));
      },
      keyOf: (row) => row.id,
    });
    const results = await Promise.all([load('a'), load('b'), load('a'), load('missing')]);
    expect(results).toEqual([rows.get('a'), rows.get('b'), rows.get('a'), undefined]);
    expect(reads).toEqual([['a', 'b', 'missing']]);
    expect(await load('b')).toEqual(rows.get('b'));
    expect(reads).toHaveLength(2);
  });

  it('splits large turns and hands a failed read to every caller of its batch', async () => {
    const sizes: number[] = [];
    const load = createBatchLoader({
      load: async (keys: string[]) => {
        sizes.push(keys.length);
        if (keys.includes('boom')) throw new Error('disk on fire');
        return [];
      },
      keyOf: (row: { id: string }) => row.id,
      maxBatch: 3,
    });
    const settled = await Promise.allSettled(['1', '2', '3', '4', 'boom'].map(load));
    expect(sizes).toEqual([3, 2]);
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
  });
});
