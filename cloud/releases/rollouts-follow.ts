/**
 * The rules that turn what an appliance reported into a store's state, and a wave's failures into
 * a halt. Pure: the engine reads the rows, these decide, the engine writes.
 */
import { INTERRUPTED_REASON as INTERRUPTED } from '../../shared/devices/fleet-protocol.ts';
import type { DeviceService } from '../devices/index.ts';
import { FAILED, FINAL, type RolloutRow, type RolloutStoreRow, type StoreState } from './rollouts-tables.ts';
import { type CountRow, type StateCounts, toRollout } from './rollouts-views.ts';

export const DID_NOT_START = 'the new version did not start';
const ROLLED_BACK = 'rolled_back:';

export type CommandSeen = Pick<
  NonNullable<Awaited<ReturnType<DeviceService['command']>>>,
  'state' | 'result'
>;

export interface ApplianceSeen {
  state: string;
  firmware_version: string | null;
}

export type StorePatch = Partial<Omit<RolloutStoreRow, 'tenant_id' | 'rollout_id' | 'location_id'>> & {
  state: StoreState;
};

export const isFinal = (state: StoreState) => FINAL.includes(state);

const final = (state: StoreState, reason: string | null, at: string): StorePatch => ({
  state,
  reason,
  finished_at: at,
  updated_at: at,
});

function failedCommand(store: RolloutStoreRow, command: CommandSeen, at: string, maxAttempts: number) {
  const said = command.result?.reason;
  const reason = typeof said === 'string' && said !== '' ? said : 'the appliance reported a failure';
  if (reason.startsWith(ROLLED_BACK))
    return final('rolled_back', reason.slice(ROLLED_BACK.length).trim(), at);
  if (reason === 'cancelled') return final('cancelled', 'cancelled on the appliance', at);
  if (!reason.includes(INTERRUPTED)) return final('failed', reason, at);
  if (Number(store.attempts) >= maxAttempts)
    return final('failed', `${INTERRUPTED}, ${store.attempts} times`, at);
  // A new command for the same release: the appliance resumes the download it had begun.
  return { state: 'queued', reason: `${INTERRUPTED}; it is sent again`, updated_at: at } satisfies StorePatch;
}

/** A store that has a command out: what its command's state makes of it. */
function byCommand(
  store: RolloutStoreRow,
  command: CommandSeen | undefined,
  at: string,
  maxAttempts: number,
) {
  if (!command) return final('failed', 'the update command is gone', at);
  switch (command.state) {
    case 'queued':
    case 'sent':
      return undefined;
    case 'acknowledged': {
      const reported = command.result?.progress;
      const progress =
        typeof reported === 'number' ? Math.min(1, Math.max(0, reported)) : Number(store.progress);
      const state: StoreState = progress >= 1 ? 'installing' : 'downloading';
      if (state === store.state && progress === Number(store.progress)) return undefined;
      return { state, progress, updated_at: at } satisfies StorePatch;
    }
    case 'succeeded': {
      const previous = command.result?.previous;
      return {
        state: 'installing',
        progress: 1,
        succeeded_at: at,
        ...(typeof previous === 'string' ? { from_version: previous } : {}),
        updated_at: at,
      } satisfies StorePatch;
    }
    case 'failed':
      return failedCommand(store, command, at, maxAttempts);
    case 'cancelled':
      return final('cancelled', 'the update command was cancelled', at);
    case 'expired':
      // Not taken before its window closed: the store waits for its next window.
      return {
        state: 'queued',
        reason: 'the update was not taken before the window closed',
        updated_at: at,
      } satisfies StorePatch;
  }
}

/**
 * The store's next state, or undefined when nothing changed. After the appliance said it
 * succeeded, the store is healthy once the appliance's status shows the new version, and rolled
 * back when it has not by the deadline (the launcher went back to the old one).
 */
export function nextState(
  store: RolloutStoreRow,
  command: CommandSeen | undefined,
  appliance: ApplianceSeen | undefined,
  now: Date,
  options: { maxAttempts: number; installTimeoutSeconds: number },
): StorePatch | undefined {
  const at = now.toISOString();
  if (store.state === 'healthy') {
    const version = appliance?.firmware_version;
    if (!version || version === store.to_version) return undefined;
    return final('rolled_back', `the new version did not stay up: the appliance runs ${version}`, at);
  }
  if (!store.succeeded_at) return byCommand(store, command, at, options.maxAttempts);
  if (appliance?.firmware_version === store.to_version) return final('healthy', null, at);
  const deadline = Date.parse(store.succeeded_at) + options.installTimeoutSeconds * 1000;
  return now.getTime() > deadline ? final('rolled_back', DID_NOT_START, at) : undefined;
}

/** A wave's failure share: failed and rolled back over its stores less those excluded or cancelled. */
export function waveHealth(counts: StateCounts) {
  const failed = FAILED.reduce((sum, state) => sum + counts[state], 0);
  const stores = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const size = stores - counts.excluded - counts.cancelled;
  return { failed, size, share: size > 0 ? failed / size : 0 };
}

/** Why the rollout must halt now, or undefined: the current wave's share, or the rollout's count. */
export function haltReason(
  row: Pick<RolloutRow, 'current_wave' | 'failure_threshold' | 'max_failures'>,
  wave: StateCounts,
  failuresInRollout: number,
) {
  const health = waveHealth(wave);
  const threshold = Number(row.failure_threshold);
  if (health.share > threshold)
    return `wave ${row.current_wave}: ${health.failed} of ${health.size} stores failed or rolled back (${health.share.toFixed(2)} > ${threshold})`;
  if (row.max_failures !== null && failuresInRollout > Number(row.max_failures))
    return `${failuresInRollout} stores failed or rolled back, more than max_failures (${row.max_failures})`;
  return undefined;
}

/** The current wave's counts and the rollout's failures, from one count of its stores. */
export function waveCounts(row: RolloutRow, counts: readonly CountRow[]) {
  const view = toRollout(row, counts);
  const wave = view.waves[view.current_wave - 1]!.counts;
  const failures = FAILED.reduce((sum, state) => sum + view.counts[state], 0);
  return { wave, failures };
}

/**
 * The alert a halt raises: one per rollout and wave (its fingerprint), resolved when an admin
 * resumes or aborts the rollout.
 */
export const haltAlert = (row: Pick<RolloutRow, 'id' | 'release_id' | 'version' | 'current_wave'>) => ({
  source: 'rollouts',
  service: 'releases',
  title: `Rollout of ${row.version} halted in wave ${row.current_wave}`,
  labels: { type: 'rollout_halted', rollout_id: row.id, release_id: row.release_id, version: row.version },
});
