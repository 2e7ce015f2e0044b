import { describe, expect, it } from 'vitest';
import {
  ageLevel,
  formatAge,
  formatChange,
  formatDuration,
  formatMinor,
  formatMoney,
  formatRelative,
  secondsSince,
} from '../../../../appliance/kiosk/web/src/lib/format.ts';

const now = Date.parse('2025-05-01T12:00:00.000Z');
const ago = (seconds: number) => new Date(now - seconds * 1000).toISOString();

describe('ages and times', () => {
  it('writes a running age as m:ss, and h:mm:ss past an hour', () => {
    expect(formatAge(0)).toBe('0:00');
    expect(formatAge(7)).toBe('0:07');
    expect(formatAge(765)).toBe('12:45');
    expect(formatAge(3729)).toBe('1:02:09');
    expect(formatAge(-5)).toBe('0:00');
  });

  it('counts seconds since a time, never below zero', () => {
    expect(secondsSince(ago(90), now)).toBe(90);
    expect(secondsSince(new Date(now + 5000).toISOString(), now)).toBe(0);
    expect(secondsSince('not a date', now)).toBe(0);
  });

  it('says how long ago in words', () => {
    expect(formatRelative(null, now)).toBe('never');
    expect(formatRelative(ago(2), now)).toBe('just now');
    expect(formatRelative(ago(42), now)).toBe('42 s ago');
    expect(formatRelative(ago(5 * 60 + 10), now)).toBe('5 min ago');
    expect(formatRelative(ago(3 * 3600), now)).toBe('3 h ago');
    expect(formatRelative(ago(2 * 86_400), now)).toBe('2 d ago');
  });

  it('writes durations', () => {
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(180)).toBe('3 min');
    expect(formatDuration(190)).toBe('3 min 10 s');
    expect(formatDuration(3900)).toBe('1 h 5 min');
  });

  it('colours ticket ages: amber from 5 minutes, red from 10', () => {
    expect(ageLevel(299)).toBe('ok');
    expect(ageLevel(300)).toBe('warn');
    expect(ageLevel(599)).toBe('warn');
    expect(ageLevel(600)).toBe('late');
  });
});

describe('money', () => {
  it('writes minor units with the currency’s own decimals', () => {
    expect(formatMinor(123456, 'USD', 'en-US')).toBe('$1,234.56');
    expect(formatMinor(1500, 'JPY', 'en-US')).toBe('¥1,500');
    expect(formatMinor(-250, 'EUR', 'en-US')).toBe('-€2.50');
  });

  it('writes decimal amounts, as orders carry them', () => {
    expect(formatMoney(12.5, 'USD', 'en-US')).toBe('$12.50');
  });

  it('falls back rather than throwing on an unknown currency code', () => {
    expect(formatMinor(100, 'not-a-currency', 'en-US')).toBe('$1.00');
  });

  it('writes a change in percent with its sign', () => {
    expect(formatChange(12.345)).toBe('+12.3%');
    expect(formatChange(-3)).toBe('-3%');
    expect(formatChange(0.01)).toBe('0%');
    expect(formatChange(null)).toBe('—');
    expect(formatChange(Number.POSITIVE_INFINITY)).toBe('—');
  });
});
