/**
 * The on-call answer as a pure function of a schedule, its overrides and an instant.
 *
 * Overrides replace the rotation's person in one slot (primary or secondary) for [starts_at,
 * ends_at). When several overrides of a slot cover the instant, the one created last wins (then the
 * greater id): the newest decision about who covers is the one that holds, and deleting it uncovers
 * the one beneath. An override does not move the other slot: covering the primary with the rotation's
 * secondary leaves that person in both slots until the secondary is overridden too.
 *
 * next_rotation is the first instant after `at` at which the primary or the secondary changes,
 * whether by a rotation handoff or by an override starting or ending; a handoff that hands over to
 * the same person (or hides behind an override) is not a change. Rotation handoffs are searched a
 * year ahead (of the schedule's start, when that is later); null means nothing changes in that time.
 */
import { type Override, type Rotation, type Schedule, type Slots, sameSlots } from './model.ts';
import { createRotation } from './rotation.ts';
import type { OverrideSlot } from './tables.ts';
import { DAY_MS } from './zoned-time.ts';

export const LOOKAHEAD_MS = 366 * DAY_MS;
/** Handoffs are searched in windows of 1, 2, 4, then 7 days: short shifts are found without listing a week of them. */
const scanStep = (round: number) => Math.min(2 ** round, 7) * DAY_MS;

export interface OnCallAnswer {
  current: Slots;
  /** The override behind each slot's person, null where the rotation decides. */
  overrides: { primary: Override | null; secondary: Override | null };
  next_rotation: string | null;
}

/** The override in force for the slot at `at`: the latest created among those covering it. */
export function overrideAt(overrides: readonly Override[], slot: OverrideSlot, at: number) {
  let winner: Override | null = null;
  for (const override of overrides) {
    if (override.slot !== slot) continue;
    if (Date.parse(override.starts_at) > at || Date.parse(override.ends_at) <= at) continue;
    const newer =
      !winner ||
      override.created_at > winner.created_at ||
      (override.created_at === winner.created_at && override.id > winner.id);
    if (newer) winner = override;
  }
  return winner;
}

function resolve(rotation: Rotation, overrides: readonly Override[], at: number) {
  const base = rotation.slotsAt(at);
  const primary = overrideAt(overrides, 'primary', at);
  const secondary = overrideAt(overrides, 'secondary', at);
  return {
    current: {
      primary: primary ? primary.person : base.primary,
      secondary: secondary ? secondary.person : base.secondary,
    },
    overrides: { primary, secondary },
  };
}

function nextChange(rotation: Rotation, overrides: readonly Override[], at: number): number | null {
  const now = resolve(rotation, overrides, at).current;
  const changed = (instant: number) => !sameSlots(resolve(rotation, overrides, instant).current, now);
  const overrideEdges = [
    ...new Set(overrides.flatMap((o) => [Date.parse(o.starts_at), Date.parse(o.ends_at)])),
  ]
    .filter((edge) => edge > at)
    .sort((a, b) => a - b);
  const horizon = Math.max(at, rotation.start) + LOOKAHEAD_MS;
  for (let from = at, round = 0; from < horizon; from += scanStep(round), round += 1) {
    const to = Math.min(from + scanStep(round), horizon);
    const handoffs = rotation.fixed
      ? [rotation.start].filter((start) => start > from && start <= to)
      : rotation.edges(from, to);
    const inWindow = overrideEdges.filter((edge) => edge > from && edge <= to);
    const candidates = [...new Set([...handoffs, ...inWindow])].sort((a, b) => a - b);
    const found = candidates.find(changed);
    if (found !== undefined) return found;
  }
  return overrideEdges.find((edge) => edge > horizon && changed(edge)) ?? null;
}

/** Who is on call for the schedule at `at`, and when that next changes. */
export function onCallAt(schedule: Schedule, overrides: readonly Override[], at: Date): OnCallAnswer {
  const rotation = createRotation(schedule);
  const instant = at.getTime();
  const next = nextChange(rotation, overrides, instant);
  return {
    ...resolve(rotation, overrides, instant),
    next_rotation: next === null ? null : new Date(next).toISOString(),
  };
}
