/**
 * The rollout engine: every tick it takes each unfinished rollout no other replica holds (a lease
 * on its row), follows the stores that were sent an update, halts the rollout when a wave fails
 * too often, dispatches the stores whose turn it is, and moves on from a wave once it has soaked.
 * Everything it knows is in the tables, so a restarted or second replica carries on where one
 * stopped; each change is its own transaction under the rollout's lock, with its event.
 */

import type { RolloutEventData } from '../../shared/events.ts';
import type { Db } from '../db/index.ts';
import { nowIso, type RolloutDeps } from './rollouts-context.ts';
import { type Appliance, createDispatch } from './rollouts-dispatch.ts';
import { type Emit, withEvents } from './rollouts-events.ts';
import {
  haltAlert,
  haltReason,
  isFinal,
  nextState,
  type StorePatch,
  waveCounts,
  waveHealth,
} from './rollouts-follow.ts';
import {
  IN_FLIGHT,
  type RolloutRow,
  type RolloutStoreRow,
  UNFINISHED,
  type WavePlan,
} from './rollouts-tables.ts';
import { toRollout, wavesOf } from './rollouts-views.ts';
import * as queries from './store-rollouts.ts';

const BATCH = 100;
const OPEN_STATES = ['queued', ...IN_FLIGHT] as const;

export function createRolloutEngine(deps: RolloutDeps) {
  const { store, options } = deps;
  const db = store.db;
  const log = deps.log.child({ module: 'rollout-engine' });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;

  /** Under the rollout's lock, while it is unfinished: a store's change and, when it ended, its event. */
  async function apply(row: RolloutRow, s: RolloutStoreRow, patch: StorePatch) {
    return withEvents(deps, async (trx, emit) => {
      const locked = await queries.lockedRollout(trx, store.dialect, row.tenant_id, row.id);
      if (!locked || !UNFINISHED.includes(locked.state)) return false;
      if (!(await queries.updateStore(trx, row.tenant_id, row.id, s.location_id, [s.state], patch)))
        return false;
      if (!isFinal(patch.state)) return true;
      await emit(
        'rollout.store_updated',
        row,
        {
          location_id: s.location_id,
          device_id: s.device_id,
          wave: Number(s.wave),
          state: patch.state as RolloutEventData['rollout.store_updated']['state'],
          reason: patch.reason ?? null,
          from_version: patch.from_version ?? s.from_version,
          to_version: s.to_version,
          attempts: Number(patch.attempts ?? s.attempts),
        },
        s.location_id,
      );
      return true;
    });
  }

  const dispatcher = createDispatch(deps, apply);

  /** Every appliance of the tenant by device id, revoked ones too (a revoked one ends its store). */
  async function appliancesOf(tenantId: string) {
    const byId = new Map<string, Appliance>();
    for (let cursor: string | undefined; ; ) {
      const page = await deps.devices.listDevices(
        tenantId,
        { deviceType: 'appliance' },
        { limit: 200, cursor },
      );
      for (const d of page.items)
        byId.set(d.id, { id: d.id, state: d.state, firmware_version: d.firmware_version });
      if (!page.nextCursor) return byId;
      cursor = page.nextCursor;
    }
  }

  /** Stores that were sent an update, and the current wave's healthy ones (which must stay so). */
  async function follow(row: RolloutRow, appliances: ReadonlyMap<string, Appliance>) {
    const sent = await queries.stores(db, row.tenant_id, row.id, { states: IN_FLIGHT });
    const soaking = await queries.stores(db, row.tenant_id, row.id, {
      states: ['healthy'],
      wave: Number(row.current_wave),
    });
    for (let s of [...sent, ...soaking]) {
      // A success may be followed by the version already showing: both moves in one tick.
      for (let move = 0; move < 2; move++) {
        const command =
          s.command_id && !s.succeeded_at
            ? await deps.devices.command(row.tenant_id, s.command_id)
            : undefined;
        const patch = nextState(s, command, appliances.get(s.device_id), deps.clock.now(), options);
        if (!patch || !(await apply(row, s, patch))) break;
        if (isFinal(patch.state) || patch.state === 'queued') break;
        s = { ...s, ...patch };
      }
    }
  }

  async function halt(row: RolloutRow, reason: string) {
    const { wave } = waveCounts(row, await queries.storeCounts(db, row.tenant_id, [row.id]));
    const health = waveHealth(wave);
    await withEvents(deps, async (trx, emit) => {
      const locked = await queries.lockedRollout(trx, store.dialect, row.tenant_id, row.id);
      if (locked?.state !== 'running') return;
      const alert = await deps.alerting.ingestWithin(trx, row.tenant_id, {
        ...haltAlert(row),
        severity: 'P2',
        description: reason,
      });
      await queries.updateRollout(trx, row.tenant_id, row.id, {
        state: 'halted',
        halted_reason: reason,
        updated_at: nowIso(deps),
      });
      await emit('rollout.halted', row, {
        wave: Number(row.current_wave),
        reason,
        failed: wave.failed,
        rolled_back: wave.rolled_back,
        wave_stores: health.size,
        failure_share: health.share,
        alert_id: alert.row.id,
      });
    });
    log.warn({ tenantId: row.tenant_id, rolloutId: row.id, reason }, 'rollout halted');
  }

  /** Halts on failures over the threshold, or when its release was retired meanwhile; whether it did. */
  async function haltIfFailing(row: RolloutRow) {
    const { wave, failures } = waveCounts(row, await queries.storeCounts(db, row.tenant_id, [row.id]));
    const release = await deps.releases.release(row.tenant_id, row.release_id);
    const reason =
      haltReason(row, wave, failures) ??
      (!release || release.retired ? 'the release was retired' : undefined);
    if (reason) await halt(row, reason);
    return reason !== undefined;
  }

  /** Writes the rollout's change under its lock if it is still running in the same wave. */
  async function moveOn(
    row: RolloutRow,
    change: (waves: WavePlan[], at: string) => Partial<RolloutRow>,
    emitted?: (trx: Db, emit: Emit) => Promise<void>,
  ) {
    await withEvents(deps, async (trx, emit) => {
      const locked = await queries.lockedRollout(trx, store.dialect, row.tenant_id, row.id);
      if (locked?.state !== 'running' || Number(locked.current_wave) !== Number(row.current_wave)) return;
      const at = nowIso(deps);
      await queries.updateRollout(trx, row.tenant_id, row.id, {
        ...change(wavesOf(locked), at),
        updated_at: at,
      });
      await emitted?.(trx, emit);
    });
  }

  /** The end of the current wave's soak: after its last success, or now when it had none. */
  async function soakEnd(row: RolloutRow) {
    const healthy = await queries.stores(db, row.tenant_id, row.id, {
      states: ['healthy'],
      wave: Number(row.current_wave),
    });
    const last = healthy.reduce(
      (latest, s) => (s.finished_at && s.finished_at > latest ? s.finished_at : latest),
      '',
    );
    const from = last ? Date.parse(last) : deps.clock.now().getTime();
    return new Date(from + Number(row.soak_seconds) * 1000).toISOString();
  }

  async function advance(row: RolloutRow) {
    const view = toRollout(row, await queries.storeCounts(db, row.tenant_id, [row.id]));
    const current = Number(row.current_wave);
    const open = (counts: Record<string, number>) =>
      OPEN_STATES.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
    if (open(view.waves[current - 1]!.counts) > 0) return;
    if (current === view.waves.length) {
      if (open(view.counts) > 0) return;
      return moveOn(
        row,
        (waves, at) => {
          waves[current - 1]!.finished_at = at;
          return { state: 'completed', waves: JSON.stringify(waves), finished_at: at };
        },
        async (trx, emit) => {
          await queries.letStoresGo(trx, row.tenant_id, row.id);
          await emit('rollout.completed', row, { counts: view.counts });
        },
      );
    }
    const soakEndsAt = row.soak_ends_at ?? (await soakEnd(row));
    if (!row.soak_ends_at)
      await moveOn(row, (waves, at) => {
        waves[current - 1]!.finished_at = at;
        return { soak_ends_at: soakEndsAt, waves: JSON.stringify(waves) };
      });
    if (deps.clock.now().toISOString() < soakEndsAt) return;
    await moveOn(
      row,
      (waves, at) => {
        waves[current]!.started_at = at;
        return { current_wave: current + 1, soak_ends_at: null, waves: JSON.stringify(waves) };
      },
      (_trx, emit) =>
        emit('rollout.wave_started', row, { wave: current + 1, stores: view.waves[current]!.stores }),
    );
  }

  async function step(tenantId: string, id: string) {
    const row = await queries.rollout(db, tenantId, id);
    if (!row || !UNFINISHED.includes(row.state)) return;
    const appliances = await appliancesOf(tenantId);
    await follow(row, appliances);
    const now = await queries.rollout(db, tenantId, id);
    if (now?.state !== 'running' || (await haltIfFailing(now))) return;
    await dispatcher.dispatch(now, appliances);
    await advance((await queries.rollout(db, tenantId, id))!);
  }

  /** One look at every unfinished rollout; answers how many it stepped. */
  async function runDue() {
    const now = deps.clock.now();
    const at = now.toISOString();
    const until = new Date(now.getTime() + Math.max(30_000, options.tickMs * 3)).toISOString();
    let stepped = 0;
    for (let after = ''; ; ) {
      const due = await queries.unleasedRollouts(db, at, after, BATCH);
      for (const ref of due) {
        if (!(await queries.claimRollout(db, ref.tenant_id, ref.id, at, until))) continue;
        try {
          await step(ref.tenant_id, ref.id);
          stepped += 1;
        } catch (error) {
          log.error({ err: error, tenantId: ref.tenant_id, rolloutId: ref.id }, 'rollout step failed');
        } finally {
          await queries.releaseRollout(db, ref.tenant_id, ref.id, until);
        }
      }
      if (due.length < BATCH) return stepped;
      after = due.at(-1)!.id;
    }
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => {
      running = runDue()
        .catch((error: unknown) => log.error({ err: error }, 'rollout tick failed'))
        .finally(schedule);
    }, options.tickMs);
  }

  return {
    runDue,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule();
    },
    async close() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

export type RolloutEngine = ReturnType<typeof createRolloutEngine>;
