/** Rollouts' tables (migration 0026). */

/**
 * `running` dispatches and moves from wave to wave; `paused` (an admin) and `halted` (too many
 * failures) send nothing new but still follow what was sent; `completed` and `aborted` are final.
 */
export const ROLLOUT_STATES = ['running', 'paused', 'halted', 'completed', 'aborted'] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];

/** States in which a rollout still holds its stores. */
export const UNFINISHED: readonly RolloutState[] = ['running', 'paused', 'halted'];

/**
 * A store's way through its wave: `queued` until it is its turn, inside its window, online (and
 * closed); `scheduled` once its update command is queued; `downloading` and `installing` as the
 * appliance reports; then one of the final states.
 */
export const STORE_STATES = [
  'queued',
  'scheduled',
  'downloading',
  'installing',
  'healthy',
  'rolled_back',
  'failed',
  'excluded',
  'cancelled',
] as const;
export type StoreState = (typeof STORE_STATES)[number];

export const IN_FLIGHT: readonly StoreState[] = ['scheduled', 'downloading', 'installing'];
export const FINAL: readonly StoreState[] = ['healthy', 'rolled_back', 'failed', 'excluded', 'cancelled'];
/** What counts against the failure threshold. */
export const FAILED: readonly StoreState[] = ['failed', 'rolled_back'];

export type WaveSpec = { count: number } | { percent: number };

/** A wave as planned at creation (its size) and as it went. */
export interface WavePlan {
  spec: WaveSpec;
  stores: number;
  started_at: string | null;
  finished_at: string | null;
}

export interface RolloutRow {
  id: string;
  tenant_id: string;
  release_id: string;
  /** The release's version, kept: it is what a store must report to be healthy. */
  version: string;
  state: RolloutState;
  /** JSON: the target as asked for. */
  target: string;
  /** JSON array of WavePlan. */
  waves: string;
  /** 1-based. */
  current_wave: number;
  soak_seconds: number;
  /** Set once the current wave finished under the threshold: the next starts at this time. */
  soak_ends_at: string | null;
  window_start: string;
  window_end: string;
  allow_open_hours: number;
  failure_threshold: number;
  max_failures: number | null;
  notes: string | null;
  halted_reason: string | null;
  created_by: string | null;
  idempotency_key: string | null;
  /** An engine's claim on the rollout until then: another replica leaves it alone meanwhile. */
  lease_until: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface RolloutStoreRow {
  tenant_id: string;
  rollout_id: string;
  location_id: string;
  device_id: string;
  wave: number;
  position: number;
  state: StoreState;
  progress: number;
  reason: string | null;
  command_id: string | null;
  attempts: number;
  from_version: string | null;
  to_version: string;
  /** 1 while the store belongs to an unfinished rollout (unique per store), null once it left it. */
  active: number | null;
  dispatched_at: string | null;
  /** When the appliance said the install succeeded: the new version must show up after it. */
  succeeded_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export interface RolloutTables {
  rollouts: RolloutRow;
  rollout_stores: RolloutStoreRow;
}
