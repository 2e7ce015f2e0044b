import { describe, expect, it } from 'vitest';
import {
  addMismatch,
  describeItems,
  type Mismatch,
  mismatchOf,
} from '../../../../appliance/kiosk/web/src/lib/mismatch.ts';

const at = '2025-05-01T12:00:00.000Z';

/** The data of a vision.order_verified event (appliance/vision/runtime/verification.ts). */
const makeVerified = (overrides: Record<string, unknown> = {}) => ({
  verification_id: 'v-1',
  order_id: 'o-1',
  camera_id: 'pickup-1',
  trigger: 'order_ready',
  verified: false,
  missing_items: [{ name: 'Fries', quantity: 1 }],
  extra_items: [],
  snapshot: null,
  ...overrides,
});

describe('a mismatch from a verification', () => {
  it('is raised for missing items', () => {
    expect(mismatchOf(makeVerified(), at)).toEqual({
      verificationId: 'v-1',
      orderId: 'o-1',
      cameraId: 'pickup-1',
      missing: [{ name: 'Fries', quantity: 1 }],
      extra: [],
      at,
    });
  });

  it('is raised for extra items', () => {
    const mismatch = mismatchOf(
      makeVerified({ missing_items: [], extra_items: [{ name: 'Cola', quantity: 2 }] }),
      at,
    );
    expect(mismatch?.extra).toEqual([{ name: 'Cola', quantity: 2 }]);
  });

  it('is not raised for an order that checked out', () => {
    expect(
      mismatchOf(makeVerified({ verified: true, missing_items: [], extra_items: [] }), at),
    ).toBeUndefined();
  });

  it('reads a stored verification too (id, created_at)', () => {
    const stored = {
      ...makeVerified(),
      verification_id: undefined,
      id: 'v-9',
      created_at: '2025-05-01T11:00:00Z',
    };
    expect(mismatchOf(stored, at)).toMatchObject({ verificationId: 'v-9', at: '2025-05-01T11:00:00Z' });
  });

  it('ignores what is not a verification, and malformed items', () => {
    expect(mismatchOf(null, at)).toBeUndefined();
    expect(mismatchOf('x', at)).toBeUndefined();
    expect(mismatchOf({ order_id: 'o-1', missing_items: [{ name: 'x', quantity: 1 }] }, at)).toBeUndefined();
    expect(mismatchOf(makeVerified({ missing_items: [{ name: 3 }], extra_items: 'no' }), at)).toBeUndefined();
  });

  it('describes items for the banner', () => {
    expect(
      describeItems([
        { name: 'Fries', quantity: 2 },
        { name: 'Cola', quantity: 1 },
      ]),
    ).toBe('2× Fries, 1× Cola');
  });
});

describe('the open mismatches', () => {
  const one = mismatchOf(makeVerified(), at) as Mismatch;
  const two = mismatchOf(makeVerified({ verification_id: 'v-2', order_id: 'o-2' }), at) as Mismatch;

  it('adds each verification once, in arrival order (a feed replay repeats events)', () => {
    const open = addMismatch(addMismatch([], new Set(), one), new Set(), two);
    expect(open.map((m) => m.verificationId)).toEqual(['v-1', 'v-2']);
    expect(addMismatch(open, new Set(), one)).toBe(open);
  });

  it('does not bring back one already acknowledged', () => {
    expect(addMismatch([], new Set(['v-1']), one)).toEqual([]);
  });
});
