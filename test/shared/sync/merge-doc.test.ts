import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { createHlc, formatHlc } from '../../../shared/sync/hlc.ts';
import {
  compactRowDoc,
  createRowDoc,
  encodeRowDoc,
  type FieldValue,
  fieldStamps,
  loadRowDoc,
  mergeRowStates,
  mergeUpdate,
  needsCompaction,
  readFields,
  writeFields,
} from '../../../shared/sync/merge-doc.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const EDGE = 101;
const CLOUD = 202;

const stamp = (offsetMs: number, node = 'edge') => formatHlc({ wall: T0 + offsetMs, counter: 0, node });
const clientIds = (doc: Y.Doc) => [...Y.decodeStateVector(Y.encodeStateVector(doc)).keys()].sort();
const sync = (from: Y.Doc, to: Y.Doc) => mergeUpdate(to, encodeRowDoc(from));

describe('row doc fields', () => {
  it('reads back what was written, with the stamp that wrote it', () => {
    const doc = createRowDoc(EDGE);
    writeFields(doc, { name: 'Margherita', price: 9.5, active: true, note: null }, stamp(0));
    writeFields(doc, { price: 10 }, stamp(1));
    expect(readFields(doc)).toEqual({ name: 'Margherita', price: 10, active: true, note: null });
    expect(fieldStamps(doc)).toEqual({ name: stamp(0), price: stamp(1), active: stamp(0), note: stamp(0) });
  });

  it('ignores a write older than the one the doc holds', () => {
    const doc = createRowDoc(EDGE);
    writeFields(doc, { price: 10 }, stamp(5));
    writeFields(doc, { price: 8 }, stamp(1));
    expect(readFields(doc)).toEqual({ price: 10 });
  });

  it('rejects a malformed stamp and values JSON cannot carry', () => {
    const doc = createRowDoc(EDGE);
    expect(() => writeFields(doc, { price: 1 }, 'yesterday')).toThrow(/Malformed/);
    expect(() => writeFields(doc, { price: Number.NaN }, stamp(0))).toThrow(/JSON scalar/);
  });

  it('lets the greater stamp win a concurrent first write whichever client id is greater', () => {
    for (const [older, newer] of [
      [EDGE, CLOUD],
      [CLOUD, EDGE],
    ] as const) {
      const a = createRowDoc(older);
      const b = createRowDoc(newer);
      writeFields(a, { name: 'old' }, stamp(0, 'a'));
      writeFields(b, { name: 'new' }, stamp(1, 'b'));
      sync(a, b);
      sync(b, a);
      expect(readFields(a)).toEqual({ name: 'new' });
      expect(readFields(b)).toEqual({ name: 'new' });
    }
  });

  it('loads an empty state as a new doc', () => {
    const doc = loadRowDoc(new Uint8Array(), EDGE);
    expect(readFields(doc)).toEqual({});
    expect(doc.clientID).toBe(EDGE);
  });

  it('keeps the client id stable across many edit and reload cycles', () => {
    let edgeState = encodeRowDoc(createRowDoc(EDGE));
    let cloudState = encodeRowDoc(createRowDoc(CLOUD));
    for (let i = 0; i < 25; i += 1) {
      const edge = loadRowDoc(edgeState, EDGE);
      writeFields(edge, { count: i }, stamp(2 * i, 'edge'));
      const cloud = loadRowDoc(cloudState, CLOUD);
      sync(edge, cloud);
      writeFields(cloud, { label: `v${i}` }, stamp(2 * i + 1, 'cloud'));
      sync(cloud, edge);
      expect(edge.clientID).toBe(EDGE);
      expect(cloud.clientID).toBe(CLOUD);
      edgeState = encodeRowDoc(edge);
      cloudState = encodeRowDoc(cloud);
    }
    const edge = loadRowDoc(edgeState, EDGE);
    expect(clientIds(edge)).toEqual([EDGE, CLOUD]);
    expect(readFields(edge)).toEqual({ count: 24, label: 'v24' });
  });
});

/** An edge doc with a long history: many writes over a few fields. */
function busyDoc(clientId: number, node: string, writes: number): Y.Doc {
  const doc = createRowDoc(clientId);
  for (let i = 0; i < writes; i += 1) {
    writeFields(doc, { [`field${i % 3}`]: `value ${i}` }, stamp(i, node));
  }
  return doc;
}

describe('mergeRowStates', () => {
  it('keeps an arriving state that covers the stored one as it came, and merges otherwise', () => {
    const edge = createRowDoc(EDGE);
    writeFields(edge, { name: 'Ann', note: null }, stamp(0));
    const first = encodeRowDoc(edge);
    expect(mergeRowStates(undefined, first, CLOUD)).toMatchObject({
      state: first,
      storedHadMore: false,
      fields: { name: 'Ann', note: null },
    });

    writeFields(edge, { note: 'late bus' }, stamp(1));
    const second = encodeRowDoc(edge);
    const kept = mergeRowStates(first, second, CLOUD);
    expect(kept.state).toBe(second);
    expect(kept.fields).toEqual({ name: 'Ann', note: 'late bus' });

    // The cloud edited too: the arriving state lacks that edit, so both are merged and it goes back.
    const cloud = loadRowDoc(first, CLOUD);
    writeFields(cloud, { name: 'Ann B.' }, stamp(2, 'cloud'));
    const merged = mergeRowStates(encodeRowDoc(cloud), second, CLOUD);
    expect(merged.storedHadMore).toBe(true);
    expect(merged.state).not.toBe(second);
    expect(merged.fields).toEqual({ name: 'Ann B.', note: 'late bus' });
    expect(readFields(loadRowDoc(merged.state, EDGE))).toEqual(merged.fields);
  });
});

describe('compactRowDoc', () => {
  it('keeps the fields and shrinks the encoded state', () => {
    const doc = busyDoc(EDGE, 'edge', 300);
    expect(needsCompaction(doc)).toBe(true);
    const compacted = compactRowDoc(doc, EDGE);
    expect(readFields(compacted)).toEqual(readFields(doc));
    expect(fieldStamps(compacted)).toEqual(fieldStamps(doc));
    expect(encodeRowDoc(compacted).byteLength).toBeLessThan(encodeRowDoc(doc).byteLength / 4);
    expect(needsCompaction(compacted)).toBe(false);
    expect(clientIds(compacted)).toEqual([EDGE]);
  });

  it('gives the same fields when an old replica state is merged into it', () => {
    const edge = busyDoc(EDGE, 'edge', 60);
    const cloud = createRowDoc(CLOUD);
    sync(edge, cloud);
    const oldCloudState = encodeRowDoc(cloud);
    writeFields(edge, { field0: 'edge later' }, stamp(100, 'edge'));
    writeFields(cloud, { field1: 'cloud later' }, stamp(101, 'cloud'));
    const laterCloudState = encodeRowDoc(cloud);

    const compacted = compactRowDoc(edge, EDGE);
    const reference = loadRowDoc(encodeRowDoc(edge), EDGE);
    for (const state of [oldCloudState, laterCloudState]) {
      mergeUpdate(compacted, state);
      mergeUpdate(reference, state);
      expect(readFields(compacted)).toEqual(readFields(reference));
    }
    expect(readFields(compacted)).toMatchObject({ field0: 'edge later', field1: 'cloud later' });
  });

  it('lets the compacting device keep its client id and still reach replicas holding the old history', () => {
    const edge = busyDoc(EDGE, 'edge', 60);
    const cloud = createRowDoc(CLOUD);
    sync(edge, cloud);

    const compacted = compactRowDoc(edge, EDGE);
    writeFields(compacted, { field2: 'after compaction' }, stamp(200, 'edge'));
    sync(compacted, cloud);
    sync(cloud, compacted);

    expect(cloud.clientID).toBe(CLOUD);
    expect(compacted.clientID).toBe(EDGE);
    expect(readFields(cloud)).toEqual(readFields(compacted));
    expect(readFields(cloud)).toEqual({ ...readFields(edge), field2: 'after compaction' });
  });
});

interface Write {
  replica: number;
  fields: Record<string, FieldValue>;
}

type Step = { kind: 'write'; write: Write } | { kind: 'deliver'; to: number; picks: number[] };

const replica = fc.integer({ min: 0, max: 2 });
const fieldNames = ['name', 'price', 'active', 'note'];
const fieldValue: fc.Arbitrary<FieldValue> = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('write' as const),
    write: fc.record({
      replica,
      fields: fc.dictionary(fc.constantFrom(...fieldNames), fieldValue, { minKeys: 1, maxKeys: 3 }),
    }),
  }),
  // Indexes into the shared log of updates: random order, repeats allowed.
  fc.record({
    kind: fc.constant('deliver' as const),
    to: replica,
    picks: fc.array(fc.nat(), { maxLength: 6 }),
  }),
);

describe('row doc properties', () => {
  it('converges on the write with the greatest stamp for every field', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -60_000, max: 60_000 }), { minLength: 3, maxLength: 3 }),
        fc.array(step, { maxLength: 40 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.boolean(),
        (skews, steps, shuffleKeys, repeats, clocksFollowMerges) => {
          const docs = [11, 22, 33].map((clientId) => createRowDoc(clientId));
          const clocks = skews.map((skew, i) => createHlc(`node-${i}`, () => T0 + skew));
          const log: Uint8Array[] = [];
          const newest = new Map<string, { stamp: string; value: FieldValue }>();
          for (const doc of docs) {
            doc.on('update', (update: Uint8Array, _origin: unknown, _doc: Y.Doc, tr: Y.Transaction) => {
              if (tr.local) log.push(update);
            });
          }

          const deliver = (to: number, update: Uint8Array) => {
            mergeUpdate(docs[to]!, update);
            // A well-behaved replica moves its clock past what it has merged; without that its
            // later writes may be older than ones it has seen, which must lose.
            if (!clocksFollowMerges) return;
            const stamps = Object.values(fieldStamps(docs[to]!)).sort();
            const latest = stamps[stamps.length - 1];
            if (latest !== undefined) clocks[to]!.receive(latest);
          };

          for (const s of steps) {
            if (s.kind === 'deliver') {
              for (const pick of s.picks) if (log.length > 0) deliver(s.to, log[pick % log.length]!);
              continue;
            }
            const writeStamp = clocks[s.write.replica]!.tick();
            writeFields(docs[s.write.replica]!, s.write.fields, writeStamp);
            for (const [field, value] of Object.entries(s.write.fields)) {
              const best = newest.get(field);
              if (best === undefined || writeStamp > best.stamp)
                newest.set(field, { stamp: writeStamp, value });
            }
          }

          // Everyone finally gets everything, in a shuffled order with repeats around it.
          const shuffleKey = (i: number) => shuffleKeys[i % shuffleKeys.length]!;
          const shuffled = [...log.keys()].sort((a, b) => shuffleKey(a) - shuffleKey(b) || a - b);
          const again = repeats.map((n) => n % Math.max(log.length, 1));
          for (let to = 0; to < docs.length; to += 1) {
            for (const index of [...again, ...shuffled, ...again]) {
              if (log[index] !== undefined) deliver(to, log[index]!);
            }
          }

          const expected = Object.fromEntries([...newest].map(([field, { value }]) => [field, value]));
          for (const doc of docs) expect(readFields(doc)).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });
});
