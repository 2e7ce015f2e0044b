import { describe, expect, it } from 'vitest';
import type { Override, Person, Region, Schedule } from '../../../cloud/oncall/model.ts';
import { onCallAt } from '../../../cloud/oncall/on-call.ts';

const person = (name: string): Person => ({ name, email: `${name.toLowerCase()}@example.com` });
const [ana, ben, cai, dee, eve] = ['Ana', 'Ben', 'Cai', 'Dee', 'Eve'].map(person) as [
  Person,
  Person,
  Person,
  Person,
  Person,
];

const schedule = (overrides: Partial<Schedule> = {}): Schedule => ({
  type: 'weekly',
  time_zone: 'America/New_York',
  handoff_time: '09:00',
  start_date: '2026-03-02',
  shift_hours: null,
  participants: [ana, ben, cai],
  regions: null,
  ...overrides,
});

let overrideSeq = 0;
const override = (
  fields: Partial<Override> & Pick<Override, 'starts_at' | 'ends_at' | 'person'>,
): Override => ({
  id: `o${String(++overrideSeq).padStart(4, '0')}`,
  slot: 'primary',
  kind: 'pto',
  created_at: '2026-01-01T00:00:00.000Z',
  ...fields,
});

const names = (answer: ReturnType<typeof onCallAt>) => ({
  primary: answer.current.primary?.name ?? null,
  secondary: answer.current.secondary?.name ?? null,
  next_rotation: answer.next_rotation,
});
const when = (s: Schedule, iso: string, overrides: Override[] = []) =>
  names(onCallAt(s, overrides, new Date(iso)));

describe('weekly rotation', () => {
  const weekly = schedule();

  it('puts the shift’s person on primary and the next in order on secondary', () => {
    expect(when(weekly, '2026-03-05T12:00:00Z')).toEqual({
      primary: 'Ana',
      secondary: 'Ben',
      next_rotation: '2026-03-09T13:00:00.000Z',
    });
    expect(when(weekly, '2026-03-23T14:00:00Z')).toEqual({
      primary: 'Ana',
      secondary: 'Ben',
      next_rotation: '2026-03-30T13:00:00.000Z',
    });
    expect(when(weekly, '2026-03-16T13:00:00Z')).toMatchObject({ primary: 'Cai', secondary: 'Ana' });
  });

  it('hands over at 09:00 New York time on each side of the spring-forward change (2026-03-08)', () => {
    // 09:00 EST is 14:00 UTC; the next handoff, after the change, is 09:00 EDT = 13:00 UTC.
    expect(when(weekly, '2026-03-02T13:59:59Z')).toMatchObject({
      primary: null,
      next_rotation: '2026-03-02T14:00:00.000Z',
    });
    expect(when(weekly, '2026-03-09T12:59:59.999Z')).toMatchObject({
      primary: 'Ana',
      next_rotation: '2026-03-09T13:00:00.000Z',
    });
    expect(when(weekly, '2026-03-09T13:00:00Z')).toMatchObject({ primary: 'Ben', secondary: 'Cai' });
  });

  it('hands over at 09:00 New York time across the fall-back change (2026-11-01)', () => {
    const autumn = schedule({ start_date: '2026-10-26' });
    expect(when(autumn, '2026-10-30T12:00:00Z')).toEqual({
      primary: 'Ana',
      secondary: 'Ben',
      next_rotation: '2026-11-02T14:00:00.000Z',
    });
  });

  it('hands over at 10:00 Berlin time across both 2026 changes (03-29 and 10-25)', () => {
    const berlin = schedule({ time_zone: 'Europe/Berlin', handoff_time: '10:00', start_date: '2026-03-23' });
    expect(when(berlin, '2026-03-25T12:00:00Z').next_rotation).toBe('2026-03-30T08:00:00.000Z');
    expect(when(berlin, '2026-03-23T08:59:00Z')).toMatchObject({
      primary: null,
      next_rotation: '2026-03-23T09:00:00.000Z',
    });
    // 30 weeks after the start: Ana's turn again.
    expect(when(berlin, '2026-10-21T12:00:00Z')).toMatchObject({
      primary: 'Ana',
      next_rotation: '2026-10-26T09:00:00.000Z',
    });
  });
});

describe('daily rotation', () => {
  const daily = schedule({ type: 'daily', start_date: '2026-03-06', participants: [ana, ben] });

  it('makes the shift over the spring-forward night 23 hours long, handing over at 09:00 local', () => {
    expect(when(daily, '2026-03-07T20:00:00Z')).toEqual({
      primary: 'Ben',
      secondary: 'Ana',
      next_rotation: '2026-03-08T13:00:00.000Z',
    });
    expect(when(daily, '2026-03-08T13:00:00Z')).toEqual({
      primary: 'Ana',
      secondary: 'Ben',
      next_rotation: '2026-03-09T13:00:00.000Z',
    });
  });

  it('makes the shift over the fall-back night 25 hours long', () => {
    const autumn = schedule({ type: 'daily', start_date: '2026-10-30', participants: [ana, ben] });
    expect(when(autumn, '2026-10-31T20:00:00Z')).toEqual({
      primary: 'Ben',
      secondary: 'Ana',
      next_rotation: '2026-11-01T14:00:00.000Z',
    });
  });

  it('hands over in the gap at the end of it, and in the overlap at its first occurrence', () => {
    const gap = schedule({
      type: 'daily',
      handoff_time: '02:30',
      start_date: '2026-03-06',
      participants: [ana, ben],
    });
    // 02:30 does not exist on 2026-03-08: the handoff is at 03:30 EDT (07:30 UTC).
    expect(when(gap, '2026-03-08T07:00:00Z')).toMatchObject({
      primary: 'Ben',
      next_rotation: '2026-03-08T07:30:00.000Z',
    });
    expect(when(gap, '2026-03-08T07:30:00Z')).toMatchObject({
      primary: 'Ana',
      next_rotation: '2026-03-09T06:30:00.000Z',
    });
    const overlap = schedule({
      type: 'daily',
      handoff_time: '01:30',
      start_date: '2026-10-30',
      participants: [ana, ben],
    });
    // 01:30 happens twice on 2026-11-01 (05:30 and 06:30 UTC): the handoff is the first.
    expect(when(overlap, '2026-11-01T05:00:00Z')).toMatchObject({
      primary: 'Ben',
      next_rotation: '2026-11-01T05:30:00.000Z',
    });
    expect(when(overlap, '2026-11-01T06:00:00Z')).toMatchObject({
      primary: 'Ana',
      next_rotation: '2026-11-02T06:30:00.000Z',
    });
  });

  it('crosses the Berlin changes at 10:00 local', () => {
    const berlin = schedule({
      type: 'daily',
      time_zone: 'Europe/Berlin',
      handoff_time: '10:00',
      start_date: '2026-03-27',
      participants: [ana, ben],
    });
    expect(when(berlin, '2026-03-28T12:00:00Z')).toMatchObject({
      primary: 'Ben',
      next_rotation: '2026-03-29T08:00:00.000Z',
    });
    const autumn = { ...berlin, start_date: '2026-10-23' };
    expect(when(autumn, '2026-10-24T12:00:00Z')).toMatchObject({
      primary: 'Ben',
      next_rotation: '2026-10-25T09:00:00.000Z',
    });
  });
});

describe('custom rotation (shift length in hours)', () => {
  it('runs 12-hour shifts at 08:00 and 20:00 local, the night shift over the change 11 hours long', () => {
    const twelve = schedule({
      type: 'custom',
      shift_hours: 12,
      handoff_time: '08:00',
      start_date: '2026-03-07',
      participants: [ana, ben, cai],
    });
    expect(when(twelve, '2026-03-07T13:00:00Z')).toMatchObject({ primary: 'Ana', secondary: 'Ben' });
    expect(when(twelve, '2026-03-08T05:00:00Z')).toEqual({
      primary: 'Ben',
      secondary: 'Cai',
      next_rotation: '2026-03-08T12:00:00.000Z',
    });
    expect(when(twelve, '2026-03-08T12:00:00Z').next_rotation).toBe('2026-03-09T00:00:00.000Z');
  });

  it('runs 8-hour shifts in UTC, and three-day shifts', () => {
    const eight = schedule({
      type: 'custom',
      shift_hours: 8,
      time_zone: 'UTC',
      handoff_time: '06:00',
      start_date: '2026-05-01',
    });
    expect(when(eight, '2026-05-02T05:59:00Z')).toEqual({
      primary: 'Cai',
      secondary: 'Ana',
      next_rotation: '2026-05-02T06:00:00.000Z',
    });
    const threeDays = { ...eight, shift_hours: 72 };
    expect(when(threeDays, '2026-05-05T12:00:00Z')).toMatchObject({
      primary: 'Ben',
      next_rotation: '2026-05-07T06:00:00.000Z',
    });
  });

  it('skips a handoff to the same person when someone is listed twice in a row', () => {
    const twice = schedule({ type: 'daily', start_date: '2026-03-02', participants: [ana, ana, ben] });
    expect(when(twice, '2026-03-02T15:00:00Z')).toEqual({
      primary: 'Ana',
      secondary: 'Ana',
      next_rotation: '2026-03-03T14:00:00.000Z',
    });
    expect(when(twice, '2026-03-03T15:00:00Z').next_rotation).toBe('2026-03-04T14:00:00.000Z');
  });
});

describe('a rotation of one', () => {
  const alone = schedule({ participants: [ana] });

  it('has no secondary and never rotates', () => {
    expect(when(alone, '2026-06-01T00:00:00Z')).toEqual({
      primary: 'Ana',
      secondary: null,
      next_rotation: null,
    });
  });

  it('rotates only when an override starts or ends', () => {
    const cover = override({
      slot: 'secondary',
      person: ben,
      starts_at: '2026-06-03T00:00:00.000Z',
      ends_at: '2026-06-04T00:00:00.000Z',
    });
    expect(when(alone, '2026-06-01T00:00:00Z', [cover]).next_rotation).toBe('2026-06-03T00:00:00.000Z');
    expect(when(alone, '2026-06-03T10:00:00Z', [cover])).toEqual({
      primary: 'Ana',
      secondary: 'Ben',
      next_rotation: '2026-06-04T00:00:00.000Z',
    });
  });

  it('finds an override that starts beyond the year it scans for handoffs', () => {
    const late = override({
      person: ben,
      starts_at: '2028-01-01T00:00:00.000Z',
      ends_at: '2028-01-02T00:00:00.000Z',
    });
    expect(when(alone, '2026-06-01T00:00:00Z', [late]).next_rotation).toBe('2028-01-01T00:00:00.000Z');
  });

  it('names the start of the schedule when asked before it, however far away', () => {
    const later = schedule({ participants: [ana], start_date: '2028-05-01' });
    expect(when(later, '2026-06-01T00:00:00Z')).toEqual({
      primary: null,
      secondary: null,
      next_rotation: '2028-05-01T13:00:00.000Z',
    });
  });
});

describe('overrides', () => {
  const weekly = schedule();
  const week = { starts_at: '2026-03-10T00:00:00.000Z', ends_at: '2026-03-12T00:00:00.000Z' };

  it.each(['pto', 'swap', 'emergency', 'holiday'] as const)(
    'a %s override replaces the slot for its range',
    (kind) => {
      const cover = override({ kind, person: dee, ...week });
      expect(when(weekly, '2026-03-09T23:00:00Z', [cover])).toEqual({
        primary: 'Ben',
        secondary: 'Cai',
        next_rotation: '2026-03-10T00:00:00.000Z',
      });
      expect(when(weekly, '2026-03-10T00:00:00Z', [cover])).toEqual({
        primary: 'Dee',
        secondary: 'Cai',
        next_rotation: '2026-03-12T00:00:00.000Z',
      });
      expect(when(weekly, '2026-03-12T00:00:00Z', [cover])).toMatchObject({ primary: 'Ben' });
      const secondary = override({ kind, slot: 'secondary', person: eve, ...week });
      expect(when(weekly, '2026-03-11T00:00:00Z', [secondary])).toMatchObject({
        primary: 'Ben',
        secondary: 'Eve',
      });
    },
  );

  it('lets the latest created of overlapping overrides win, and the earlier one show again after it', () => {
    const pto = override({ person: dee, ...week, created_at: '2026-03-01T00:00:00.000Z' });
    const emergency = override({
      kind: 'emergency',
      person: eve,
      starts_at: '2026-03-10T12:00:00.000Z',
      ends_at: '2026-03-10T18:00:00.000Z',
      created_at: '2026-03-10T11:00:00.000Z',
    });
    const both = [emergency, pto];
    expect(when(weekly, '2026-03-10T06:00:00Z', both)).toMatchObject({
      primary: 'Dee',
      next_rotation: '2026-03-10T12:00:00.000Z',
    });
    expect(when(weekly, '2026-03-10T12:00:00Z', both)).toMatchObject({
      primary: 'Eve',
      next_rotation: '2026-03-10T18:00:00.000Z',
    });
    expect(when(weekly, '2026-03-10T18:00:00Z', both)).toMatchObject({
      primary: 'Dee',
      next_rotation: '2026-03-12T00:00:00.000Z',
    });
    // Created later, but the same second: the greater id decides, never the order in the list.
    const tie = override({ person: cai, ...week, created_at: pto.created_at });
    expect(when(weekly, '2026-03-10T06:00:00Z', [tie, pto]).primary).toBe('Cai');
    expect(when(weekly, '2026-03-10T06:00:00Z', [pto, tie]).primary).toBe('Cai');
  });

  it('does not count a handoff hidden behind overrides of both slots, nor an override naming the same person', () => {
    const span = { starts_at: '2026-03-08T00:00:00.000Z', ends_at: '2026-03-11T00:00:00.000Z' };
    const both = [override({ person: dee, ...span }), override({ slot: 'secondary', person: eve, ...span })];
    expect(when(weekly, '2026-03-08T06:00:00Z', both).next_rotation).toBe('2026-03-11T00:00:00.000Z');
    const same = override({
      person: ana,
      starts_at: '2026-03-04T00:00:00.000Z',
      ends_at: '2026-03-05T00:00:00.000Z',
    });
    expect(when(weekly, '2026-03-03T00:00:00Z', [same]).next_rotation).toBe('2026-03-09T13:00:00.000Z');
  });

  it('ignores an override that ended, and one that starts exactly at its end is in force', () => {
    const ended = override({
      person: dee,
      starts_at: '2026-03-03T00:00:00.000Z',
      ends_at: '2026-03-04T00:00:00.000Z',
    });
    expect(when(weekly, '2026-03-04T00:00:00Z', [ended])).toMatchObject({ primary: 'Ana' });
    const next = override({
      person: eve,
      starts_at: '2026-03-04T00:00:00.000Z',
      ends_at: '2026-03-05T00:00:00.000Z',
    });
    expect(when(weekly, '2026-03-03T12:00:00Z', [ended, next])).toMatchObject({
      primary: 'Dee',
      next_rotation: '2026-03-04T00:00:00.000Z',
    });
    expect(when(weekly, '2026-03-04T00:00:00Z', [ended, next])).toMatchObject({ primary: 'Eve' });
  });

  it('covers the time before the schedule starts', () => {
    const early = override({
      person: dee,
      starts_at: '2026-03-01T00:00:00.000Z',
      ends_at: '2026-03-03T00:00:00.000Z',
    });
    expect(when(weekly, '2026-03-01T12:00:00Z', [early])).toEqual({
      primary: 'Dee',
      secondary: null,
      next_rotation: '2026-03-02T14:00:00.000Z',
    });
  });

  it('reports which override is behind each slot', () => {
    const cover = override({ kind: 'holiday', person: dee, ...week });
    const answer = onCallAt(weekly, [cover], new Date('2026-03-11T00:00:00Z'));
    expect(answer.overrides).toEqual({ primary: cover, secondary: null });
  });
});

describe('follow-the-sun', () => {
  const region = (
    name: string,
    time_zone: string,
    participants: Person[],
    fields: Partial<Region> = {},
  ): Region => ({
    name,
    time_zone,
    start_time: '09:00',
    end_time: '17:00',
    rotation_days: 1,
    participants,
    ...fields,
  });
  const [s1, s2, e1, n1, n2] = ['Sam', 'Sue', 'Emil', 'Nia', 'Ned'].map(person) as [
    Person,
    Person,
    Person,
    Person,
    Person,
  ];
  const sun = schedule({
    type: 'follow_the_sun',
    time_zone: 'UTC',
    handoff_time: '00:00',
    start_date: '2026-03-09',
    participants: [],
    regions: [
      region('APAC', 'Australia/Sydney', [s1, s2]),
      region('EMEA', 'Europe/Berlin', [e1]),
      region('AMER', 'America/New_York', [n1, n2], { rotation_days: 7 }),
    ],
  });

  // 2026-03-10: Sydney is UTC+11 (09-17 = 22:00-06:00 UTC), Berlin UTC+1 (08:00-16:00 UTC),
  // New York already UTC-4 (13:00-21:00 UTC).
  it('hands the pager around the globe as each region’s working day begins', () => {
    expect(when(sun, '2026-03-10T03:00:00Z')).toEqual({
      primary: 'Sue',
      secondary: 'Sam',
      next_rotation: '2026-03-10T08:00:00.000Z',
    });
    // Berlin has one person: the secondary is whoever takes over next (New York).
    expect(when(sun, '2026-03-10T10:00:00Z')).toEqual({
      primary: 'Emil',
      secondary: 'Nia',
      next_rotation: '2026-03-10T13:00:00.000Z',
    });
    // Berlin still works, but New York's day began later: New York has it. Berlin's end changes nothing.
    expect(when(sun, '2026-03-10T14:00:00Z')).toEqual({
      primary: 'Nia',
      secondary: 'Ned',
      next_rotation: '2026-03-10T22:00:00.000Z',
    });
  });

  it('keeps the region whose day ended last on call through a gap in coverage', () => {
    expect(when(sun, '2026-03-10T07:00:00Z')).toMatchObject({
      primary: 'Sue',
      next_rotation: '2026-03-10T08:00:00.000Z',
    });
    expect(when(sun, '2026-03-10T21:30:00Z')).toEqual({
      primary: 'Nia',
      secondary: 'Ned',
      next_rotation: '2026-03-10T22:00:00.000Z',
    });
    // Sydney's 2026-03-11 shift goes to Sam (one day each).
    expect(when(sun, '2026-03-10T22:00:00Z')).toMatchObject({ primary: 'Sam', secondary: 'Sue' });
  });

  it('follows each region’s own daylight-saving change', () => {
    // Before Berlin springs forward (03-29) its day starts at 08:00 UTC; after, at 07:00 UTC.
    expect(when(sun, '2026-03-27T06:30:00Z').next_rotation).toBe('2026-03-27T08:00:00.000Z');
    expect(when(sun, '2026-03-30T06:30:00Z').next_rotation).toBe('2026-03-30T07:00:00.000Z');
    // Sydney leaves daylight time on 2026-04-05: 09:00 is 23:00 UTC from the 6th on.
    expect(when(sun, '2026-04-05T21:30:00Z').next_rotation).toBe('2026-04-05T23:00:00.000Z');
    // New York rotates weekly by its own calendar: Nia's week from 03-09, Ned's from 03-16.
    expect(when(sun, '2026-03-16T14:00:00Z')).toMatchObject({ primary: 'Ned', secondary: 'Nia' });
  });

  it('handles working hours across midnight and nobody on before the start', () => {
    const night = schedule({
      type: 'follow_the_sun',
      time_zone: 'UTC',
      handoff_time: '00:00',
      start_date: '2026-06-01',
      participants: [],
      regions: [
        region('Night', 'Asia/Kolkata', [s1], { start_time: '22:00', end_time: '06:00' }),
        region('Day', 'Asia/Kolkata', [e1], { start_time: '06:00', end_time: '22:00' }),
      ],
    });
    // 22:00 IST = 16:30 UTC.
    expect(when(night, '2026-06-02T17:00:00Z')).toEqual({
      primary: 'Sam',
      secondary: 'Emil',
      next_rotation: '2026-06-03T00:30:00.000Z',
    });
    expect(when(night, '2026-05-31T12:00:00Z')).toEqual({
      primary: null,
      secondary: null,
      next_rotation: '2026-06-01T00:00:00.000Z',
    });
  });
});

describe('next_rotation, checked against the answers around it', () => {
  const sunRegions: Region[] = [
    {
      name: 'APAC',
      time_zone: 'Australia/Sydney',
      start_time: '08:30',
      end_time: '18:00',
      rotation_days: 2,
      participants: [ana, ben],
    },
    {
      name: 'EMEA',
      time_zone: 'Europe/Berlin',
      start_time: '09:00',
      end_time: '17:00',
      rotation_days: 7,
      participants: [cai],
    },
    {
      name: 'AMER',
      time_zone: 'America/New_York',
      start_time: '22:00',
      end_time: '06:00',
      rotation_days: 1,
      participants: [dee, eve],
    },
  ];
  const cases: Array<[string, Schedule]> = [
    ['weekly New York', schedule()],
    [
      'daily Berlin 02:30 (in the gap once a year)',
      schedule({ type: 'daily', time_zone: 'Europe/Berlin', handoff_time: '02:30' }),
    ],
    ['custom 5 h Lord Howe', schedule({ type: 'custom', shift_hours: 5, time_zone: 'Australia/Lord_Howe' })],
    ['follow-the-sun', schedule({ type: 'follow_the_sun', participants: [], regions: sunRegions })],
  ];
  const covers = [
    override({ person: eve, starts_at: '2026-03-07T22:10:00.000Z', ends_at: '2026-03-08T09:00:00.000Z' }),
    override({
      slot: 'secondary',
      person: dee,
      starts_at: '2026-10-24T00:00:00.000Z',
      ends_at: '2026-10-26T00:00:00.000Z',
    }),
  ];
  const key = (answer: ReturnType<typeof onCallAt>) =>
    `${answer.current.primary?.name}/${answer.current.secondary?.name}`;

  // Instants around both 2026 changes in each hemisphere; between `at` and next_rotation every
  // quarter hour must give the same answer, and next_rotation itself a different one.
  const instants = [
    '2026-03-07T20:00:00Z',
    '2026-03-28T23:00:00Z',
    '2026-04-04T12:00:00Z',
    '2026-10-03T14:00:00Z',
    '2026-10-24T22:00:00Z',
    '2026-10-31T23:00:00Z',
  ];
  it.each(cases)('%s: nothing changes before next_rotation, something at it', (_name, s) => {
    for (const iso of instants) {
      let at = new Date(iso);
      for (let step = 0; step < 6; step += 1) {
        const answer = onCallAt(s, covers, at);
        expect(answer.next_rotation, `${iso} step ${step}`).not.toBeNull();
        const next = Date.parse(answer.next_rotation!);
        expect(next).toBeGreaterThan(at.getTime());
        for (let t = at.getTime(); t < next; t += 15 * 60_000) {
          expect(key(onCallAt(s, covers, new Date(t))), new Date(t).toISOString()).toBe(key(answer));
        }
        expect(key(onCallAt(s, covers, new Date(next - 1))), `just before ${answer.next_rotation}`).toBe(
          key(answer),
        );
        expect(key(onCallAt(s, covers, new Date(next))), `at ${answer.next_rotation}`).not.toBe(key(answer));
        at = new Date(next);
      }
    }
  });
});
