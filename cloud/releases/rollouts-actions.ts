/**
 * What an admin does to a running rollout. Each action locks the rollout row for its transaction
 * (the engine's steps do too), so an action and a step take turns, and its event commits with it.
 */
import type { ErrorDetail } from '../../shared/http/errors.ts';
import type { Db } from '../db/index.ts';
import { nowIso, type RolloutDeps } from './rollouts-context.ts';
import {
  failuresOverThreshold,
  rolloutEnded,
  rolloutNotFound,
  storesNotInRollout,
  wrongRolloutState,
} from './rollouts-errors.ts';
import { type Emit, withEvents } from './rollouts-events.ts';
import { haltAlert, haltReason, waveCounts, waveHealth } from './rollouts-follow.ts';
import {
  FAILED,
  IN_FLIGHT,
  type RolloutRow,
  type RolloutState,
  type RolloutStoreRow,
  type StoreState,
  UNFINISHED,
} from './rollouts-tables.ts';
import type { Rollout } from './rollouts-views.ts';
import * as queries from './store-rollouts.ts';

type Actor = string | null;
const RETRYABLE: readonly StoreState[] = ['failed', 'rolled_back', 'cancelled'];

export function createRolloutActions(
  deps: RolloutDeps,
  service: { view(tenantId: string, row: RolloutRow): Promise<Rollout> },
) {
  const { store } = deps;

  /** Runs `act` on the locked rollout, if it is in one of `from`; answers the rollout as it is after. */
  async function act(
    tenantId: string,
    id: string,
    verb: string,
    from: readonly RolloutState[],
    work: (trx: Db, row: RolloutRow, emit: Emit) => Promise<void>,
  ) {
    await withEvents(deps, async (trx, emit) => {
      const row = await queries.lockedRollout(trx, store.dialect, tenantId, id);
      if (!row) throw rolloutNotFound();
      if (!UNFINISHED.includes(row.state)) throw rolloutEnded(row.state);
      if (!from.includes(row.state)) throw wrongRolloutState(row.state, verb);
      await work(trx, row, emit);
    });
    return service.view(tenantId, (await queries.rollout(store.db, tenantId, id))!);
  }

  const setState = (trx: Db, row: RolloutRow, state: RolloutState, extra: Partial<RolloutRow> = {}) =>
    queries.updateRollout(trx, row.tenant_id, row.id, { state, updated_at: nowIso(deps), ...extra });

  /** The stores leave the rollout for good: their commands still out are called off. */
  async function letGo(
    trx: Db,
    row: RolloutRow,
    stores: RolloutStoreRow[],
    state: StoreState,
    reason: string,
  ) {
    const at = nowIso(deps);
    const moved: RolloutStoreRow[] = [];
    for (const s of stores) {
      if (s.command_id && IN_FLIGHT.includes(s.state))
        await deps.devices.cancelCommandIn(trx, row.tenant_id, s.command_id);
      const patch = { state, reason, finished_at: at, updated_at: at, active: null };
      if (await queries.updateStore(trx, row.tenant_id, row.id, s.location_id, [s.state], patch))
        moved.push({ ...s, ...patch });
    }
    return moved;
  }

  /** The listed stores of the rollout in `allowed` states; any other is a 422 naming it. */
  async function listed(
    trx: Db,
    row: RolloutRow,
    locationIds: readonly string[],
    allowed: readonly StoreState[],
  ) {
    const found = await queries.stores(trx, row.tenant_id, row.id, { locationIds });
    const byId = new Map(found.map((s) => [s.location_id, s]));
    const problems: ErrorDetail[] = [];
    for (const [index, id] of locationIds.entries()) {
      const s = byId.get(id);
      if (!s) problems.push({ field: `body.location_ids[${index}]`, message: 'is not in this rollout' });
      else if (!allowed.includes(s.state))
        problems.push({ field: `body.location_ids[${index}]`, message: `is ${s.state}` });
    }
    if (problems.length > 0) throw storesNotInRollout(problems);
    return found;
  }

  /** A halted rollout resumes only once its current wave is back under the threshold. */
  async function checkRecovered(trx: Db, row: RolloutRow) {
    const { wave, failures } = waveCounts(row, await queries.storeCounts(trx, row.tenant_id, [row.id]));
    if (!haltReason(row, wave, failures)) return;
    const failing = await queries.stores(trx, row.tenant_id, row.id, {
      states: FAILED,
      wave: row.current_wave,
    });
    throw failuresOverThreshold(
      waveHealth(wave).share,
      Number(row.failure_threshold),
      failing.map((s) => s.location_id),
    );
  }

  return {
    /** New stores wait; updates already sent carry on and are followed. */
    pause: (tenantId: string, id: string, by: Actor) =>
      act(tenantId, id, 'paused', ['running'], async (trx, row, emit) => {
        await setState(trx, row, 'paused');
        await emit('rollout.paused', row, { wave: Number(row.current_wave), by });
      }),

    resume: (tenantId: string, id: string, by: Actor) =>
      act(tenantId, id, 'resumed', ['paused', 'halted'], async (trx, row, emit) => {
        if (row.state === 'halted') {
          await checkRecovered(trx, row);
          await deps.alerting.resolveWithin(trx, tenantId, haltAlert(row), by ?? 'rollouts');
        }
        await setState(trx, row, 'running', { halted_reason: null });
        const from = row.state === 'halted' ? 'halted' : 'paused';
        await emit('rollout.resumed', row, { wave: Number(row.current_wave), by, from });
      }),

    /** Every store that has not ended is cancelled, its update command with it. */
    abort: (tenantId: string, id: string, by: Actor) =>
      act(tenantId, id, 'aborted', UNFINISHED, async (trx, row, emit) => {
        const open = await queries.stores(trx, tenantId, id, { states: ['queued', ...IN_FLIGHT] });
        const cancelled = await letGo(trx, row, open, 'cancelled', 'the rollout was aborted');
        if (row.state === 'halted')
          await deps.alerting.resolveWithin(trx, tenantId, haltAlert(row), by ?? 'rollouts');
        await queries.letStoresGo(trx, tenantId, id);
        await setState(trx, row, 'aborted', { finished_at: nowIso(deps), soak_ends_at: null });
        await emit('rollout.aborted', row, {
          wave: Number(row.current_wave),
          by,
          cancelled_stores: cancelled.length,
        });
      }),

    /** The stores leave the rollout; their wave's failure share is counted without them. */
    exclude: (tenantId: string, id: string, locationIds: readonly string[], by: Actor) =>
      act(tenantId, id, 'changed', UNFINISHED, async (trx, row, emit) => {
        const allowed: StoreState[] = ['queued', ...IN_FLIGHT, ...RETRYABLE];
        const found = await listed(trx, row, locationIds, allowed);
        const reason = by ? `excluded by ${by}` : 'excluded';
        for (const s of await letGo(trx, row, found, 'excluded', reason))
          await emit(
            'rollout.store_updated',
            row,
            {
              location_id: s.location_id,
              device_id: s.device_id,
              wave: Number(s.wave),
              state: 'excluded',
              reason,
              from_version: s.from_version,
              to_version: s.to_version,
              attempts: Number(s.attempts),
            },
            s.location_id,
          );
      }),

    /** Failed, rolled-back or cancelled stores go back to the queue (all of them when none are named). */
    retry: (tenantId: string, id: string, locationIds: readonly string[] | undefined, _by: Actor) =>
      act(tenantId, id, 'changed', UNFINISHED, async (trx, row) => {
        const found = locationIds
          ? await listed(trx, row, locationIds, RETRYABLE)
          : await queries.stores(trx, tenantId, id, { states: RETRYABLE });
        const at = nowIso(deps);
        for (const s of found)
          await queries.updateStore(trx, tenantId, id, s.location_id, [s.state], {
            state: 'queued',
            reason: null,
            progress: 0,
            command_id: null,
            attempts: 0,
            dispatched_at: null,
            succeeded_at: null,
            finished_at: null,
            updated_at: at,
          });
      }),
  };
}
