import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareHlc,
  createHlc,
  formatHlc,
  HLC_PATTERN,
  HlcDriftError,
  isHlc,
  parseHlc,
} from '../../../shared/sync/hlc.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const NODE = '0190b5d2-7c1e-7f3a-9a4b-1c2d3e4f5a6b';

describe('HLC stamps', () => {
  it('formats fixed-width wall and counter and keeps hyphens in the node id', () => {
    const stamp = formatHlc({ wall: T0, counter: 0x2a, node: NODE });
    expect(stamp).toBe(`${T0}-002a-${NODE}`);
    expect(parseHlc(stamp)).toEqual({ wall: T0, counter: 0x2a, node: NODE });
  });

  it('rejects malformed stamps', () => {
    for (const bad of ['', 'nope', `${T0}-02a-n`, `${T0}-002A-n`, `${T0}-002a-`, `${T0}-002a-a b`]) {
      expect(isHlc(bad)).toBe(false);
      expect(() => parseHlc(bad)).toThrow(/Malformed HLC stamp/);
    }
    expect(isHlc(42)).toBe(false);
  });

  it('exposes a pattern a JSON schema can use', () => {
    const pattern = new RegExp(HLC_PATTERN);
    expect(pattern.test(`${T0}-ffff-${NODE}`)).toBe(true);
    expect(pattern.test(`x${T0}-ffff-${NODE}`)).toBe(false);
  });

  it('orders by wall, then counter, then node, as plain strings', () => {
    const a = formatHlc({ wall: 999, counter: 0xfff, node: 'z' });
    const b = formatHlc({ wall: 1000, counter: 0, node: 'a' });
    const c = formatHlc({ wall: 1000, counter: 1, node: 'a' });
    const d = formatHlc({ wall: 1000, counter: 1, node: 'b' });
    expect([d, c, b, a].sort(compareHlc)).toEqual([a, b, c, d]);
    expect(compareHlc(a, a)).toBe(0);
  });
});

describe('createHlc', () => {
  it('follows the wall clock and counts within one millisecond', () => {
    let now = T0;
    const hlc = createHlc('edge', () => now);
    expect(hlc.tick()).toBe(formatHlc({ wall: T0, counter: 0, node: 'edge' }));
    expect(hlc.tick()).toBe(formatHlc({ wall: T0, counter: 1, node: 'edge' }));
    now = T0 + 5;
    expect(hlc.tick()).toBe(formatHlc({ wall: T0 + 5, counter: 0, node: 'edge' }));
    expect(hlc.last()).toBe(formatHlc({ wall: T0 + 5, counter: 0, node: 'edge' }));
  });

  it('does not go backwards when the wall clock does', () => {
    let now = T0;
    const hlc = createHlc('edge', () => now);
    const first = hlc.tick();
    now = T0 - 60_000;
    expect(hlc.tick()).toBe(formatHlc({ wall: T0, counter: 1, node: 'edge' }));
    expect(hlc.tick() > first).toBe(true);
  });

  it('moves to the next millisecond when the counter runs out', () => {
    const full = formatHlc({ wall: T0, counter: 0xffff, node: 'edge' });
    expect(createHlc('edge', () => T0, { last: full }).tick()).toBe(
      formatHlc({ wall: T0 + 1, counter: 0, node: 'edge' }),
    );
    const remote = formatHlc({ wall: T0, counter: 0xffff, node: 'cloud' });
    expect(createHlc('edge', () => T0).receive(remote)).toBe(
      formatHlc({ wall: T0 + 1, counter: 0, node: 'edge' }),
    );
  });

  it('orders a received stamp after both clocks', () => {
    const edge = createHlc('edge', () => T0);
    const local = edge.tick();
    const remote = formatHlc({ wall: T0 + 1000, counter: 7, node: 'cloud' });
    const merged = edge.receive(remote);
    expect(merged).toBe(formatHlc({ wall: T0 + 1000, counter: 8, node: 'edge' }));
    expect(merged > local && merged > remote).toBe(true);
    expect(edge.tick()).toBe(formatHlc({ wall: T0 + 1000, counter: 9, node: 'edge' }));
  });

  it('orders after a remote stamp from the same millisecond with a greater node id', () => {
    const edge = createHlc('a', () => T0);
    const remote = formatHlc({ wall: T0, counter: 3, node: 'zz' });
    expect(edge.receive(remote) > remote).toBe(true);
  });

  it('refuses stamps too far ahead of the local clock and malformed ones', () => {
    const edge = createHlc('edge', () => T0, { maxDriftMs: 60_000 });
    expect(() => edge.receive(formatHlc({ wall: T0 + 60_001, counter: 0, node: 'c' }))).toThrow(
      HlcDriftError,
    );
    // Without a limit, a stamp far ahead is taken in and the next local stamp orders after it.
    const store = createHlc('store', () => T0, { maxDriftMs: Number.POSITIVE_INFINITY });
    const ahead = formatHlc({ wall: T0 + 3 * 86_400_000, counter: 0, node: 'c' });
    store.receive(ahead);
    expect(store.tick() > ahead).toBe(true);
    expect(() => edge.receive('garbage')).toThrow(/Malformed/);
    expect(edge.last()).toBe(formatHlc({ wall: 0, counter: 0, node: 'edge' }));
    expect(() => edge.receive(formatHlc({ wall: T0 + 60_000, counter: 0, node: 'c' }))).not.toThrow();
  });

  it('defaults to a day of allowed drift', () => {
    const edge = createHlc('edge', () => T0);
    const day = 24 * 60 * 60 * 1000;
    expect(() => edge.receive(formatHlc({ wall: T0 + day, counter: 0, node: 'c' }))).not.toThrow();
    expect(() => edge.receive(formatHlc({ wall: T0 + day + 1, counter: 0, node: 'c' }))).toThrow(/ahead/);
  });

  it('resumes after a restart from the newest stored stamp even if the wall clock is behind', () => {
    const stored = formatHlc({ wall: T0 + 5000, counter: 3, node: 'cloud' });
    const hlc = createHlc('edge', () => T0, { last: stored });
    expect(hlc.tick()).toBe(formatHlc({ wall: T0 + 5000, counter: 4, node: 'edge' }));
  });

  it('rejects node ids that would break the format', () => {
    expect(() => createHlc('')).toThrow(/node id/);
    expect(() => createHlc('a b')).toThrow(/node id/);
  });
});

type Command =
  | { kind: 'skew'; node: number; deltaMs: number }
  | { kind: 'tick'; node: number }
  | { kind: 'send'; from: number; to: number }
  | { kind: 'restart'; node: number };

const node = fc.integer({ min: 0, max: 2 });
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('skew' as const), node, deltaMs: fc.integer({ min: -5000, max: 5000 }) }),
  fc.record({ kind: fc.constant('tick' as const), node }),
  fc.record({ kind: fc.constant('send' as const), from: node, to: node }),
  fc.record({ kind: fc.constant('restart' as const), node }),
);

describe('HLC properties', () => {
  it('issues strictly increasing stamps, each after every stamp its node has received', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -3_600_000, max: 3_600_000 }), { minLength: 3, maxLength: 3 }),
        fc.array(command, { maxLength: 120 }),
        (skews, commands) => {
          const walls = skews.map((skew) => T0 + skew);
          const names = ['edge-1', 'edge-2', 'cloud'];
          const make = (i: number, last?: string) =>
            createHlc(names[i]!, () => walls[i]!, last === undefined ? {} : { last });
          const clocks = names.map((_, i) => make(i));
          const newest = names.map(() => '');

          // Every stamp a node issues must order after everything it issued or received before.
          const issued = (i: number, stamp: string) => {
            expect(stamp > newest[i]!).toBe(true);
            newest[i] = stamp;
          };
          const received = (i: number, stamp: string) => {
            if (stamp > newest[i]!) newest[i] = stamp;
          };

          for (const step of commands) {
            if (step.kind === 'skew') walls[step.node] = walls[step.node]! + step.deltaMs;
            if (step.kind === 'tick') issued(step.node, clocks[step.node]!.tick());
            if (step.kind === 'restart') clocks[step.node] = make(step.node, clocks[step.node]!.last());
            if (step.kind === 'send') {
              const stamp = clocks[step.from]!.tick();
              issued(step.from, stamp);
              received(step.to, stamp);
              issued(step.to, clocks[step.to]!.receive(stamp));
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
