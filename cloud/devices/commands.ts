/**
 * Commands to devices (restart, update, settings, sync now): queued here, carried by the fleet link,
 * acknowledged by the device. Every command has an id and an expiry, and its state is visible.
 */
import type { Db } from '../db/index.ts';
import type { DeviceContext } from './context.ts';
import { nowIso, requireDevice } from './context.ts';
import {
  deviceNotEnrolled,
  deviceNotFound,
  deviceRevoked,
  noUpdate,
  updateNotCancellable,
} from './errors.ts';
import { device as deviceRow } from './store.ts';
import * as queries from './store-commands.ts';
import type { CommandKind, CommandState, DeviceCommandRow } from './tables.ts';
import { type Command, toCommand } from './views.ts';

/** How long a command may wait for its device: a restart hours late is a surprise, an update is not. */
export const COMMAND_TTL_SECONDS: Record<CommandKind, number> = {
  restart: 3600,
  sync_now: 900,
  settings: 86_400,
  update: 7 * 86_400,
  cancel_update: 3600,
  models_sync: 3 * 86_400,
  calibrate: 3600,
  // A remediation waits for these minutes, not hours: a late fix is one nobody expects.
  restart_service: 600,
  rotate_logs: 600,
  clear_cache: 600,
};

const WAITING: readonly CommandState[] = ['queued', 'sent'];
/** An update may be cancelled until it ends: one the device holds is told to stop. */
const CANCELLABLE: readonly CommandState[] = ['queued', 'sent', 'acknowledged'];
/** States in which the device may hold the command, so a cancellation must reach it. */
const HELD: readonly CommandState[] = ['sent', 'acknowledged'];

/**
 * The states each state may move to; failed and expired move no more. A cancelled command still
 * takes the device's word that it succeeded (it finished before the cancellation reached it):
 * the registry shows what the device did, not what was hoped.
 */
const NEXT: Partial<Record<CommandState, readonly CommandState[]>> = {
  queued: ['sent', 'acknowledged', 'succeeded', 'failed', 'cancelled', 'expired'],
  sent: ['acknowledged', 'succeeded', 'failed', 'cancelled', 'expired'],
  // Again while it works: each progress report of a long command (a download) is kept.
  acknowledged: ['acknowledged', 'succeeded', 'failed', 'cancelled'],
  cancelled: ['succeeded'],
};

export interface NewCommand {
  kind: CommandKind;
  payload?: Record<string, unknown>;
  ttlSeconds?: number;
  /** The rollout an update belongs to: its status names it. */
  rolloutId?: string;
}

export function createCommands(context: DeviceContext) {
  const db = context.store.db;

  /** Commands, newest first; those whose time ran out while waiting are `expired` first. */
  async function commandsFor(tenantId: string, filter: queries.CommandFilter): Promise<Command[]> {
    await queries.expireCommands(db, tenantId, nowIso(context), filter.deviceId);
    return (await queries.commands(db, tenantId, filter)).map(toCommand);
  }

  /**
   * Queues a command for a device of the tenant. A new update replaces an update still waiting:
   * a device applies one version at a time, the latest asked for. Given `trx`, it is written in
   * the caller's transaction (a rollout records the command with its own change).
   */
  async function queueCommand(
    tenantId: string,
    deviceId: string,
    input: NewCommand,
    trx?: Db,
  ): Promise<Command> {
    const device = await deviceRow(trx ?? db, tenantId, deviceId);
    if (!device) throw deviceNotFound();
    if (device.state === 'revoked') throw deviceRevoked();
    const now = context.clock.now();
    const at = now.toISOString();
    const ttl = input.ttlSeconds ?? COMMAND_TTL_SECONDS[input.kind];
    const row: DeviceCommandRow = {
      id: context.newId(),
      tenant_id: tenantId,
      device_id: deviceId,
      kind: input.kind,
      payload: JSON.stringify(input.payload ?? {}),
      state: 'queued',
      expires_at: new Date(now.getTime() + ttl * 1000).toISOString(),
      created_at: at,
      updated_at: at,
      acked_at: null,
      result: null,
      rollout_id: input.rolloutId ?? null,
    };
    const write = async (tx: Db) => {
      if (input.kind === 'update') {
        const waiting = await queries.commands(tx, tenantId, {
          deviceId,
          kind: 'update',
          states: WAITING,
          limit: 100,
        });
        for (const earlier of waiting) await cancelIn(tx, earlier, at);
      }
      await queries.insertCommand(tx, row);
    };
    if (trx) await write(trx);
    else await db.transaction().execute(write);
    return toCommand(row);
  }

  /**
   * Cancels a command in the caller's transaction; one the device may hold gets a `cancel_update`
   * queued beside it, carried like any command (resent to an appliance that was away, expiring).
   */
  async function cancelIn(trx: Db, command: DeviceCommandRow, at: string) {
    const moved = await queries.transitionCommand(trx, command.tenant_id, command.id, [command.state], {
      state: 'cancelled',
      updated_at: at,
    });
    if (!moved || !HELD.includes(command.state)) return moved;
    await queries.insertCommand(trx, {
      id: context.newId(),
      tenant_id: command.tenant_id,
      device_id: command.device_id,
      kind: 'cancel_update',
      payload: JSON.stringify({ command_id: command.id }),
      state: 'queued',
      expires_at: new Date(Date.parse(at) + COMMAND_TTL_SECONDS.cancel_update * 1000).toISOString(),
      created_at: at,
      updated_at: at,
      acked_at: null,
      result: null,
      rollout_id: null,
    });
    return true;
  }

  /**
   * The fleet link's report of a command's progress; undefined when the command is unknown or the
   * move is not allowed from its current state (a late acknowledgement of a cancelled command).
   */
  async function updateCommand(
    tenantId: string,
    commandId: string,
    change: { state: CommandState; result?: Record<string, unknown> | undefined },
  ): Promise<Command | undefined> {
    const current = await queries.command(db, tenantId, commandId);
    if (!current || !(NEXT[current.state] ?? []).includes(change.state)) return undefined;
    const at = nowIso(context);
    const patch = {
      state: change.state,
      updated_at: at,
      ...(change.state !== 'sent' &&
      change.state !== 'cancelled' &&
      change.state !== 'expired' &&
      !current.acked_at
        ? { acked_at: at }
        : {}),
      ...(change.result !== undefined ? { result: JSON.stringify(change.result) } : {}),
    };
    if (!(await queries.transitionCommand(db, tenantId, commandId, [current.state], patch))) return undefined;
    return toCommand((await queries.command(db, tenantId, commandId))!);
  }

  async function latestUpdate(tenantId: string, deviceId: string) {
    await requireDevice(context, tenantId, deviceId);
    const [latest] = await commandsFor(tenantId, { deviceId, kind: 'update', limit: 1 });
    if (!latest) throw noUpdate();
    return latest;
  }

  /** An update as its status shows it: the version it installs and the rollout that sent it. */
  async function asUpdate(tenantId: string, command: Command) {
    const row = await queries.command(db, tenantId, command.command_id);
    const version = command.payload.version;
    return {
      ...command,
      version: typeof version === 'string' ? version : null,
      rollout_id: row?.rollout_id ?? null,
    };
  }

  return {
    queueCommand,
    commandsFor,
    updateCommand,
    /** For the fleet link only: every tenant's commands waiting to be sent. */
    dueCommands: (limit: number) => queries.dueCommands(db, nowIso(context), limit),

    /** One command as it stands; one whose time ran out while waiting is `expired` first. */
    async command(tenantId: string, commandId: string): Promise<Command | undefined> {
      const row = await queries.command(db, tenantId, commandId);
      if (!row) return undefined;
      if (WAITING.includes(row.state) && row.expires_at <= nowIso(context))
        await queries.expireCommands(db, tenantId, nowIso(context), row.device_id);
      const now = await queries.command(db, tenantId, commandId);
      return now && toCommand(now);
    },

    /** Cancels a command that has not ended, in the caller's transaction; whether it did. */
    async cancelCommandIn(trx: Db, tenantId: string, commandId: string) {
      const row = await queries.command(trx, tenantId, commandId);
      if (!row || !CANCELLABLE.includes(row.state)) return false;
      return cancelIn(trx, row, nowIso(context));
    },

    /** Queues a restart, or returns the one still waiting: pressing twice restarts once. */
    async restart(tenantId: string, deviceId: string) {
      const device = await requireDevice(context, tenantId, deviceId);
      if (device.state === 'revoked') throw deviceRevoked();
      if (device.state === 'pending_activation') throw deviceNotEnrolled();
      const [waiting] = await commandsFor(tenantId, { deviceId, kind: 'restart', states: WAITING, limit: 1 });
      return waiting ?? queueCommand(tenantId, deviceId, { kind: 'restart' });
    },

    /** The latest update asked of the device, with its version and what the device reported. */
    async updateStatus(tenantId: string, deviceId: string) {
      return asUpdate(tenantId, await latestUpdate(tenantId, deviceId));
    },

    /**
     * Cancels the latest update until it ends: a waiting one is never sent, one the device holds
     * (downloading, checking) is told to stop and roll back. One that ended stays as it ended.
     */
    async cancelUpdate(tenantId: string, deviceId: string) {
      const latest = await latestUpdate(tenantId, deviceId);
      if (!CANCELLABLE.includes(latest.state)) throw updateNotCancellable(latest.state);
      const row = (await queries.command(db, tenantId, latest.command_id))!;
      const cancelled = await db.transaction().execute((trx) => cancelIn(trx, row, nowIso(context)));
      if (!cancelled) throw updateNotCancellable((await latestUpdate(tenantId, deviceId)).state);
      return asUpdate(tenantId, toCommand((await queries.command(db, tenantId, latest.command_id))!));
    },
  };
}
