/** Rollouts as the API shows them: parsed JSON, booleans, and counts per wave and state. */
import {
  type RolloutRow,
  type RolloutStoreRow,
  STORE_STATES,
  type StoreState,
  type WavePlan,
} from './rollouts-tables.ts';

export type StateCounts = Record<StoreState, number>;
export interface CountRow {
  rollout_id: string;
  wave: number;
  state: StoreState;
  count: number;
}

const zero = () => Object.fromEntries(STORE_STATES.map((state) => [state, 0])) as StateCounts;

export const wavesOf = (row: Pick<RolloutRow, 'waves'>) => JSON.parse(row.waves) as WavePlan[];

function countsByWave(rows: readonly CountRow[]) {
  const byWave = new Map<number, StateCounts>();
  for (const row of rows) {
    const counts = byWave.get(row.wave) ?? zero();
    counts[row.state] += row.count;
    byWave.set(row.wave, counts);
  }
  return byWave;
}

export function toRollout(row: RolloutRow, counts: readonly CountRow[]) {
  const byWave = countsByWave(counts.filter((count) => count.rollout_id === row.id));
  const total = zero();
  for (const waveCounts of byWave.values())
    for (const state of STORE_STATES) total[state] += waveCounts[state];
  return {
    id: row.id,
    release_id: row.release_id,
    version: row.version,
    state: row.state,
    target: JSON.parse(row.target) as Record<string, unknown>,
    waves: wavesOf(row).map((plan, index) => ({
      wave: index + 1,
      ...plan.spec,
      stores: plan.stores,
      counts: byWave.get(index + 1) ?? zero(),
      started_at: plan.started_at,
      finished_at: plan.finished_at,
    })),
    current_wave: Number(row.current_wave),
    soak_seconds: Number(row.soak_seconds),
    soak_ends_at: row.soak_ends_at,
    window: { start: row.window_start, end: row.window_end },
    allow_open_hours: Number(row.allow_open_hours) === 1,
    failure_threshold: Number(row.failure_threshold),
    max_failures: row.max_failures === null ? null : Number(row.max_failures),
    notes: row.notes,
    halted_reason: row.halted_reason,
    stores: Object.values(total).reduce((sum, count) => sum + count, 0),
    counts: total,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    finished_at: row.finished_at,
  };
}
export type Rollout = ReturnType<typeof toRollout>;

export const toRolloutStore = (row: RolloutStoreRow) => ({
  location_id: row.location_id,
  device_id: row.device_id,
  wave: Number(row.wave),
  state: row.state,
  progress: Number(row.progress),
  reason: row.reason,
  command_id: row.command_id,
  attempts: Number(row.attempts),
  from_version: row.from_version,
  to_version: row.to_version,
  dispatched_at: row.dispatched_at,
  finished_at: row.finished_at,
  updated_at: row.updated_at,
});
export type RolloutStore = ReturnType<typeof toRolloutStore>;
