/**
 * Dispatch: a queued store of the current wave (or an earlier one, retried) gets its update command
 * when its appliance is online, its local time is inside the rollout's window and, unless the
 * rollout allows otherwise, the store is closed. The command lives until the window closes, so an
 * appliance never starts an install outside it; one not taken by then sends the store back to
 * the queue for its next window.
 */
import { isTimeZone } from '../../shared/business-day.ts';
import { nowIso, type RolloutDeps } from './rollouts-context.ts';
import type { ApplianceSeen, StorePatch } from './rollouts-follow.ts';
import type { RolloutRow, RolloutStoreRow } from './rollouts-tables.ts';
import { inWindow, localClock, minutesLeftInWindow, openNow, type StoreHours } from './rollouts-window.ts';
import * as queries from './store-rollouts.ts';

/** The download may take a while after the appliance took the command: its link outlives the command. */
const DOWNLOAD_GRACE_SECONDS = 6 * 3600;
/** Dispatching at the window's last minute still gives the fleet link time to deliver. */
const MIN_COMMAND_SECONDS = 300;

export type Appliance = ApplianceSeen & { id: string };

/** Writes a store's change, with its event when it ended; whether the store moved. */
export type ApplyPatch = (row: RolloutRow, store: RolloutStoreRow, patch: StorePatch) => Promise<boolean>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parsedHours(value: unknown) {
  if (typeof value !== 'string') return isObject(value) ? value : undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function createDispatch(deps: RolloutDeps, apply: ApplyPatch) {
  const db = deps.store.db;

  /** The store's time zone and hours: its own synced settings first, then tenancy's time zone. */
  async function hoursOf(tenantId: string, locationId: string): Promise<StoreHours> {
    const settings = await deps.sync.row(tenantId, locationId, 'location_settings', locationId);
    const fields = settings?.fields ?? {};
    const synced =
      typeof fields.timezone === 'string' && isTimeZone(fields.timezone) ? fields.timezone : undefined;
    const location = synced ? undefined : await deps.tenancy.findLocation(tenantId, locationId);
    return {
      timezone: synced ?? location?.timezone ?? 'UTC',
      status: typeof fields.status === 'string' ? fields.status : undefined,
      hours: parsedHours(fields.hours) as StoreHours['hours'],
    };
  }

  async function send(row: RolloutRow, store: RolloutStoreRow, appliance: Appliance, commandSeconds: number) {
    const manifest = await deps.releases.signedManifest(row.tenant_id, row.release_id, {
      ttlSeconds: commandSeconds + DOWNLOAD_GRACE_SECONDS,
    });
    await db.transaction().execute(async (trx) => {
      const locked = await queries.lockedRollout(trx, deps.store.dialect, row.tenant_id, row.id);
      if (locked?.state !== 'running') return;
      const at = nowIso(deps);
      const claimed = await queries.updateStore(trx, row.tenant_id, row.id, store.location_id, ['queued'], {
        state: 'scheduled',
        progress: 0,
        attempts: Number(store.attempts) + 1,
        from_version: appliance.firmware_version ?? store.from_version,
        dispatched_at: at,
        succeeded_at: null,
        updated_at: at,
      });
      if (!claimed) return;
      const command = await deps.devices.queueCommand(
        row.tenant_id,
        store.device_id,
        { kind: 'update', payload: { ...manifest }, ttlSeconds: commandSeconds, rolloutId: row.id },
        trx,
      );
      await queries.updateStore(trx, row.tenant_id, row.id, store.location_id, ['scheduled'], {
        command_id: command.command_id,
      });
    });
  }

  /** What keeps a store waiting now, or what ends it before it is sent anything. */
  function settledWithout(
    store: RolloutStoreRow,
    appliance: Appliance | undefined,
    at: string,
  ): StorePatch | undefined {
    if (!appliance || appliance.state === 'revoked')
      return { state: 'cancelled', reason: 'the appliance was revoked', finished_at: at, updated_at: at };
    if (appliance.firmware_version === store.to_version)
      return {
        state: 'healthy',
        progress: 1,
        reason: 'the appliance already runs this version',
        finished_at: at,
        updated_at: at,
      };
    return undefined;
  }

  return {
    hoursOf,

    async dispatch(row: RolloutRow, appliances: ReadonlyMap<string, Appliance>) {
      const now = deps.clock.now();
      const window = { start: row.window_start, end: row.window_end };
      const queued = await queries.stores(db, row.tenant_id, row.id, {
        states: ['queued'],
        upToWave: Number(row.current_wave),
      });
      for (const store of queued) {
        const appliance = appliances.get(store.device_id);
        const settled = settledWithout(store, appliance, now.toISOString());
        if (settled) {
          await apply(row, store, settled);
          continue;
        }
        if (appliance!.state !== 'online') continue;
        const hours = await hoursOf(row.tenant_id, store.location_id);
        const local = localClock(now, hours.timezone);
        if (!inWindow(local.minutes, window)) continue;
        if (Number(row.allow_open_hours) !== 1 && openNow(hours, now)) continue;
        const seconds = Math.max(MIN_COMMAND_SECONDS, minutesLeftInWindow(local.minutes, window) * 60);
        await send(row, store, appliance!, seconds);
      }
    },
  };
}
