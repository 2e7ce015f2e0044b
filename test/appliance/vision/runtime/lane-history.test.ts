import { describe, expect, it } from 'vitest';
import { businessDayOf } from '../../../../appliance/location/index.ts';
import {
  businessDayStart,
  type LaneVisit,
  laneBuckets,
} from '../../../../appliance/vision/runtime/lane-history.ts';

const T0 = Date.parse('2026-06-10T12:00:00.000Z');
const min = 60_000;
const visit = (fromMin: number, toMin: number, served = true): LaneVisit => ({
  enteredAt: T0 + fromMin * min,
  leftAt: T0 + toMin * min,
  served,
  waitSeconds: served ? (toMin - fromMin) * 60 : null,
});

describe('the lane over a shift, in buckets', () => {
  it('averages cars in the lane over time, takes the most at once, and counts the served with their wait', () => {
    const buckets = laneBuckets([visit(-3, 2), visit(1, 4), visit(2, 8), visit(6, 9, false), visit(7, 7)], {
      since: T0,
      until: T0 + 10 * min,
      bucketMs: 5 * min,
    });
    expect(buckets).toEqual([
      {
        at: '2026-06-10T12:00:00.000Z',
        // 2 + 3 + 3 car-minutes over 5 minutes.
        queue_length_avg: 1.6,
        // The first car leaves as the third joins: never three at once.
        queue_length_max: 2,
        wait_seconds_avg: 240,
        cars_served: 2,
      },
      {
        at: '2026-06-10T12:05:00.000Z',
        queue_length_avg: 1.2,
        queue_length_max: 2,
        // The balked car is not served; the car seen for no time is served, waiting 0.
        wait_seconds_avg: 180,
        cars_served: 2,
      },
    ]);
  });

  it('ends the last bucket at until, and leaves empty buckets empty', () => {
    const buckets = laneBuckets([visit(0, 30)], { since: T0, until: T0 + 12 * min, bucketMs: 5 * min });
    expect(buckets.map((b) => [b.at.slice(11, 16), b.queue_length_avg, b.queue_length_max])).toEqual([
      ['12:00', 1, 1],
      ['12:05', 1, 1],
      ['12:10', 1, 1],
    ]);
    expect(laneBuckets([], { since: T0, until: T0 + 2 * min, bucketMs: min })).toEqual([
      {
        at: '2026-06-10T12:00:00.000Z',
        queue_length_avg: 0,
        queue_length_max: 0,
        wait_seconds_avg: null,
        cars_served: 0,
      },
      {
        at: '2026-06-10T12:01:00.000Z',
        queue_length_avg: 0,
        queue_length_max: 0,
        wait_seconds_avg: null,
        cars_served: 0,
      },
    ]);
  });
});

describe('the start of a business day', () => {
  it('is the store’s day start in its time zone, before or after local midnight', () => {
    const zone = 'America/New_York';
    expect(businessDayStart(new Date('2026-06-10T19:00:00.000Z'), zone, '04:00').toISOString()).toBe(
      '2026-06-10T08:00:00.000Z',
    );
    // 01:30 local belongs to the day before.
    expect(businessDayStart(new Date('2026-06-11T05:30:00.000Z'), zone, '04:00').toISOString()).toBe(
      '2026-06-10T08:00:00.000Z',
    );
    expect(businessDayStart(new Date('2026-06-10T08:00:00.000Z'), zone, '04:00').toISOString()).toBe(
      '2026-06-10T08:00:00.000Z',
    );
  });

  it('holds across a DST change and agrees with businessDayOf', () => {
    const zone = 'Europe/London';
    // 29 March 2026: the clocks go forward at 01:00 UTC; a day starting at 00:00 is 23 hours long.
    const start = businessDayStart(new Date('2026-03-29T22:30:00.000Z'), zone, '00:00');
    expect(start.toISOString()).toBe('2026-03-29T00:00:00.000Z');
    const next = businessDayStart(new Date('2026-03-29T23:30:00.000Z'), zone, '00:00');
    expect(next.toISOString()).toBe('2026-03-29T23:00:00.000Z');
    expect(businessDayOf(new Date(next.getTime() - 1), zone, '00:00')).toBe('2026-03-29');
  });
});
