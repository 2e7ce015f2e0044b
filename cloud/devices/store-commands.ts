/** Device commands and telemetry samples; every query takes the tenant first. */
import type { Db } from '../db/index.ts';
import type { CommandKind, CommandState, DeviceCommandRow, DeviceTelemetryRow } from './tables.ts';

export interface CommandFilter {
  deviceId?: string | undefined;
  locationId?: string | undefined;
  kind?: CommandKind | undefined;
  states?: readonly CommandState[] | undefined;
  limit: number;
}

export const insertCommand = (db: Db, row: DeviceCommandRow) =>
  db.insertInto('device_commands').values(row).execute();

export const command = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('device_commands')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/** Newest first. */
export const commands = (db: Db, tenantId: string, filter: CommandFilter) =>
  db
    .selectFrom('device_commands')
    .selectAll('device_commands')
    .where('device_commands.tenant_id', '=', tenantId)
    .$if(filter.deviceId !== undefined, (q) => q.where('device_commands.device_id', '=', filter.deviceId!))
    .$if(filter.locationId !== undefined, (q) =>
      q
        .innerJoin('devices', 'devices.id', 'device_commands.device_id')
        .where('devices.tenant_id', '=', tenantId)
        .where('devices.location_id', '=', filter.locationId!),
    )
    .$if(filter.kind !== undefined, (q) => q.where('device_commands.kind', '=', filter.kind!))
    .$if(filter.states !== undefined, (q) => q.where('device_commands.state', 'in', [...filter.states!]))
    .orderBy('device_commands.id', 'desc')
    .limit(filter.limit)
    .execute();

/**
 * Moves a command on only from one of the `from` states, so two writers (an acknowledgement and a
 * cancellation) cannot both win; whether it moved.
 */
export async function transitionCommand(
  db: Db,
  tenantId: string,
  id: string,
  from: readonly CommandState[],
  patch: Partial<Pick<DeviceCommandRow, 'state' | 'updated_at' | 'acked_at' | 'result'>>,
) {
  const result = await db
    .updateTable('device_commands')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('state', 'in', [...from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Commands still waiting whose time ran out become `expired`; scoped to one device or all. */
export const expireCommands = (db: Db, tenantId: string, now: string, deviceId?: string) =>
  db
    .updateTable('device_commands')
    .set({ state: 'expired', updated_at: now })
    .where('tenant_id', '=', tenantId)
    .$if(deviceId !== undefined, (q) => q.where('device_id', '=', deviceId!))
    .where('state', 'in', ['queued', 'sent'])
    .where('expires_at', '<=', now)
    .execute();

/** A revoked device gets nothing more: what still waits for it is called off. */
export const cancelPendingCommands = (db: Db, tenantId: string, deviceId: string, now: string) =>
  db
    .updateTable('device_commands')
    .set({ state: 'cancelled', updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('device_id', '=', deviceId)
    .where('state', 'in', ['queued', 'sent'])
    .execute();

/** A row already there (a store resending a minute) stays as it is. */
export const insertTelemetry = (db: Db, rows: DeviceTelemetryRow[]) =>
  db
    .insertInto('device_telemetry')
    .values(rows)
    .onConflict((c) => c.column('id').doNothing())
    .execute();

/** The newest `limit` rows in (from, to], oldest first. */
export async function telemetry(
  db: Db,
  tenantId: string,
  deviceId: string,
  window: { from: string; to: string },
  limit: number,
) {
  const rows = await db
    .selectFrom('device_telemetry')
    .select(['at', 'samples', 'metrics'])
    .where('tenant_id', '=', tenantId)
    .where('device_id', '=', deviceId)
    .where('at', '>', window.from)
    .where('at', '<=', window.to)
    .orderBy('at', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse();
}

/** last_seen_at only moves forward: samples may arrive out of order after an outage. */
export const touchDevice = (db: Db, tenantId: string, deviceId: string, at: string) =>
  db
    .updateTable('devices')
    .set({ last_seen_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', deviceId)
    .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<', at)]))
    .execute();

/**
 * The fleet link's queue, across tenants (it serves every tenant's appliances): commands not yet
 * handed to the broker and still in time, oldest first, with where their device is.
 */
export const dueCommands = (db: Db, now: string, limit: number) =>
  db
    .selectFrom('device_commands')
    .innerJoin('devices', 'devices.id', 'device_commands.device_id')
    .selectAll('device_commands')
    .select(['devices.location_id', 'devices.device_type'])
    .where('device_commands.state', '=', 'queued')
    .where('device_commands.expires_at', '>', now)
    .orderBy('device_commands.id')
    .limit(limit)
    .execute();
