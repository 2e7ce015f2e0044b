/**
 * Rollouts: a release shipped to the tenant's appliances in waves. Creating one resolves its target
 * to stores and plans their waves; the engine (rollout-engine.ts) then dispatches and follows them,
 * and admins pause, resume, abort, exclude and retry (rollouts-actions.ts).
 */
import { createRolloutEngine } from './rollout-engine.ts';
import { createRolloutActions } from './rollouts-actions.ts';
import { nowIso, type RolloutDeps, rolloutReleases } from './rollouts-context.ts';
import {
  emptyTarget,
  invalidTarget,
  invalidWaves,
  releaseRetired,
  rolloutNotFound,
  storesInAnotherRollout,
} from './rollouts-errors.ts';
import { withEvents } from './rollouts-events.ts';
import type { RolloutRow, RolloutState, RolloutStoreRow, StoreState, WaveSpec } from './rollouts-tables.ts';
import { resolveTarget, type Target, type TargetStore } from './rollouts-targets.ts';
import { toRollout, toRolloutStore } from './rollouts-views.ts';
import { DEFAULT_WAVES, planWaves, waveOfEach, waveProblems } from './rollouts-waves.ts';
import type { ReleaseService } from './service.ts';
import * as queries from './store-rollouts.ts';

export interface NewRollout {
  release_id: string;
  target: Target;
  waves?: WaveSpec[] | undefined;
  soak_seconds?: number | undefined;
  window?: { start: string; end: string } | undefined;
  allow_open_hours?: boolean | undefined;
  failure_threshold?: number | undefined;
  max_failures?: number | undefined;
  notes?: string | undefined;
}

export const ROLLOUT_DEFAULTS = {
  soak_seconds: 3600,
  window: { start: '02:00', end: '05:00' },
  failure_threshold: 0.2,
} as const;

export function createRollouts(deps: RolloutDeps) {
  const { store } = deps;
  const db = store.db;

  async function view(tenantId: string, row: RolloutRow) {
    return toRollout(row, await queries.storeCounts(db, tenantId, [row.id]));
  }

  async function requireRollout(tenantId: string, id: string) {
    const row = await queries.rollout(db, tenantId, id);
    if (!row) throw rolloutNotFound();
    return row;
  }

  /** The release, its stores and their waves, or the first reason there can be no rollout. */
  async function plan(tenantId: string, input: NewRollout) {
    const release = await deps.releases.release(tenantId, input.release_id);
    if (!release)
      throw invalidTarget([{ field: 'body.release_id', message: 'does not exist in this tenant' }]);
    if (release.retired) throw releaseRetired();
    // What every dispatch will need, tried now: a cloud that cannot sign (no public address) says so at once.
    await deps.releases.signedManifest(tenantId, release.id, { ttlSeconds: 60 });
    const specs = input.waves ?? DEFAULT_WAVES;
    const problems = waveProblems(specs);
    if (problems.length > 0) throw invalidTarget(problems);
    const { stores, locations } = await resolveTarget(deps, tenantId, input.target);
    if (stores.length === 0) throw emptyTarget(locations);
    const waves = planWaves(specs, stores.length, input.waves === undefined);
    if (waves.problems.length > 0) throw invalidWaves(waves.problems);
    const held = await queries.activeStores(
      db,
      tenantId,
      stores.map((s) => s.location_id),
    );
    if (held.length > 0) throw storesInAnotherRollout(held);
    return { release, stores, waves: waves.sizes };
  }

  function storeRows(row: RolloutRow, stores: TargetStore[], sizes: number[]): RolloutStoreRow[] {
    const waveOf = waveOfEach(sizes);
    return stores.map((s, position) => ({
      tenant_id: row.tenant_id,
      rollout_id: row.id,
      location_id: s.location_id,
      device_id: s.device_id,
      wave: waveOf[position]!,
      position,
      state: 'queued',
      progress: 0,
      reason: null,
      command_id: null,
      attempts: 0,
      from_version: s.from_version,
      to_version: row.version,
      active: 1,
      dispatched_at: null,
      succeeded_at: null,
      finished_at: null,
      updated_at: row.created_at,
    }));
  }

  /** A retry with the same key, or a race for the same stores, answers what the first one made. */
  async function afterConflict(
    error: unknown,
    tenantId: string,
    key: string | undefined,
    stores: TargetStore[],
  ) {
    if (!store.isUniqueViolation(error)) throw error;
    const earlier = key && (await queries.rolloutByIdempotencyKey(db, tenantId, key));
    if (earlier) return { rollout: await view(tenantId, earlier), created: false };
    const held = await queries.activeStores(
      db,
      tenantId,
      stores.map((s) => s.location_id),
    );
    if (held.length > 0) throw storesInAnotherRollout(held);
    throw error;
  }

  async function create(tenantId: string, input: NewRollout, actor: string | null, idempotencyKey?: string) {
    const earlier = idempotencyKey && (await queries.rolloutByIdempotencyKey(db, tenantId, idempotencyKey));
    if (earlier) return { rollout: await view(tenantId, earlier), created: false };
    const planned = await plan(tenantId, input);
    const at = nowIso(deps);
    const window = input.window ?? ROLLOUT_DEFAULTS.window;
    const row: RolloutRow = {
      id: deps.newId(),
      tenant_id: tenantId,
      release_id: planned.release.id,
      version: planned.release.version,
      state: 'running',
      target: JSON.stringify(input.target),
      waves: JSON.stringify(
        planned.waves.map((wave, index) => ({
          spec: wave.spec,
          stores: wave.stores,
          started_at: index === 0 ? at : null,
          finished_at: null,
        })),
      ),
      current_wave: 1,
      soak_seconds: input.soak_seconds ?? ROLLOUT_DEFAULTS.soak_seconds,
      soak_ends_at: null,
      window_start: window.start,
      window_end: window.end,
      allow_open_hours: input.allow_open_hours ? 1 : 0,
      failure_threshold: input.failure_threshold ?? ROLLOUT_DEFAULTS.failure_threshold,
      max_failures: input.max_failures ?? null,
      notes: input.notes ?? null,
      halted_reason: null,
      created_by: actor,
      idempotency_key: idempotencyKey ?? null,
      lease_until: null,
      created_at: at,
      updated_at: at,
      finished_at: null,
    };
    const sizes = planned.waves.map((wave) => wave.stores);
    try {
      await withEvents(deps, async (trx, emit) => {
        await queries.insertRollout(trx, row);
        await queries.insertStores(trx, storeRows(row, planned.stores, sizes));
        await emit('rollout.started', row, {
          stores: planned.stores.length,
          wave_sizes: sizes,
          created_by: actor,
        });
        await emit('rollout.wave_started', row, { wave: 1, stores: sizes[0]! });
      });
    } catch (error) {
      return afterConflict(error, tenantId, idempotencyKey, planned.stores);
    }
    deps.log.info(
      { tenantId, rolloutId: row.id, version: row.version, stores: planned.stores.length },
      'rollout started',
    );
    return { rollout: await view(tenantId, row), created: true };
  }

  return {
    create,
    requireRollout,

    get: async (tenantId: string, id: string) => view(tenantId, await requireRollout(tenantId, id)),

    async list(
      tenantId: string,
      filter: { state?: RolloutState | undefined },
      page: { limit: number; cursor?: string | undefined },
    ) {
      const rows = await queries.rollouts(db, tenantId, {
        ...filter,
        before: page.cursor,
        limit: page.limit + 1,
      });
      const items = rows.slice(0, page.limit);
      const counts = await queries.storeCounts(
        db,
        tenantId,
        items.map((row) => row.id),
      );
      return {
        items: items.map((row) => toRollout(row, counts)),
        nextCursor: rows.length > page.limit ? items.at(-1)!.id : null,
      };
    },

    /** The rollout's stores in rollout order; the cursor is the last position of the previous page. */
    async stores(
      tenantId: string,
      id: string,
      filter: { state?: StoreState | undefined; wave?: number | undefined },
      page: { limit: number; cursor?: number | undefined },
    ) {
      await requireRollout(tenantId, id);
      const rows = await queries.stores(db, tenantId, id, {
        ...(filter.state ? { states: [filter.state] } : {}),
        wave: filter.wave,
        after: page.cursor,
        limit: page.limit + 1,
      });
      const items = rows.slice(0, page.limit);
      return {
        items: items.map(toRolloutStore),
        nextCursor: rows.length > page.limit ? String(items.at(-1)!.position) : null,
      };
    },

    ...createRolloutActions(deps, { view }),
  };
}

export type Rollouts = ReturnType<typeof createRollouts>;

/** The rollouts' API and their engine, on the releases service (which they read releases from). */
export function createRolloutService(deps: Omit<RolloutDeps, 'releases'> & { releases: ReleaseService }) {
  const full: RolloutDeps = { ...deps, releases: rolloutReleases(deps.releases) };
  return { ...createRollouts(full), engine: createRolloutEngine(full) };
}

export type RolloutService = ReturnType<typeof createRolloutService>;
