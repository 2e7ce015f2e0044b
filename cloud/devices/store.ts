/**
 * Devices, their certificates and the CA row. Every query of tenant data takes the tenant first;
 * the lookups by enrolment-token digest and by serial are the exceptions, made for callers that
 * prove who they are with that secret or that certificate and have no tenant yet.
 */
import type { DeviceType } from '../../shared/mqtt/topics.ts';
import type { Db } from '../db/index.ts';
import type {
  DeviceCaRow,
  DeviceCertificateRow,
  DeviceRow,
  DeviceState,
  RevocationReason,
} from './tables.ts';

export interface DeviceFilter {
  locationId?: string | undefined;
  state?: DeviceState | undefined;
  deviceType?: DeviceType | undefined;
}

export type DeviceWithExpiry = DeviceRow & { certificate_expires_at: string | null };

export const CA_ID = 'device-ca';

/** The device with when its newest live certificate runs out. */
const deviceQuery = (db: Db) =>
  db
    .selectFrom('devices')
    .selectAll('devices')
    .select((eb) =>
      eb
        .selectFrom('device_certificates')
        .select((inner) => inner.fn.max('device_certificates.not_after').as('not_after'))
        .whereRef('device_certificates.device_id', '=', 'devices.id')
        .where('device_certificates.revoked_at', 'is', null)
        .as('certificate_expires_at'),
    );

export const caRow = (db: Db) =>
  db.selectFrom('device_ca').selectAll().where('id', '=', CA_ID).executeTakeFirst();

export const insertCa = (db: Db, row: DeviceCaRow) => db.insertInto('device_ca').values(row).execute();

export const insertDevice = (db: Db, row: DeviceRow) => db.insertInto('devices').values(row).execute();

export const device = (db: Db, tenantId: string, id: string) =>
  deviceQuery(db)
    .where('devices.tenant_id', '=', tenantId)
    .where('devices.id', '=', id)
    .executeTakeFirst() as Promise<DeviceWithExpiry | undefined>;

export const devices = (
  db: Db,
  tenantId: string,
  filter: DeviceFilter,
  page: { limit: number; after?: string },
) =>
  deviceQuery(db)
    .where('devices.tenant_id', '=', tenantId)
    .$if(filter.locationId !== undefined, (q) => q.where('devices.location_id', '=', filter.locationId!))
    .$if(filter.state !== undefined, (q) => q.where('devices.state', '=', filter.state!))
    .$if(filter.deviceType !== undefined, (q) => q.where('devices.device_type', '=', filter.deviceType!))
    .$if(page.after !== undefined, (q) => q.where('devices.id', '>', page.after!))
    .orderBy('devices.id')
    .limit(page.limit)
    .execute() as Promise<DeviceWithExpiry[]>;

export const deviceByTokenDigest = (db: Db, digest: string) =>
  db.selectFrom('devices').selectAll().where('enrollment_token_digest', '=', digest).executeTakeFirst();

export async function updateDevice(
  db: Db,
  tenantId: string,
  id: string,
  patch: Partial<Omit<DeviceRow, 'id' | 'tenant_id' | 'created_at'>>,
  only: { tokenDigest?: string; notRevoked?: boolean } = {},
) {
  const result = await db
    .updateTable('devices')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .$if(only.tokenDigest !== undefined, (q) => q.where('enrollment_token_digest', '=', only.tokenDigest!))
    .$if(only.notRevoked === true, (q) => q.where('state', '<>', 'revoked'))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export const insertCertificate = (db: Db, row: DeviceCertificateRow) =>
  db.insertInto('device_certificates').values(row).execute();

export const certificateBySerial = (db: Db, serial: string) =>
  db.selectFrom('device_certificates').selectAll().where('serial', '=', serial).executeTakeFirst();

export const certificate = (db: Db, tenantId: string, serial: string) =>
  db
    .selectFrom('device_certificates')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('serial', '=', serial)
    .executeTakeFirst();

/** A device's certificates not revoked yet (only `serial` when given): what a revocation is about to reach. */
export const liveCertificates = (db: Db, tenantId: string, target: { deviceId: string; serial?: string }) =>
  db
    .selectFrom('device_certificates')
    .select(['serial', 'device_id', 'not_after', 'certificate_pem'])
    .where('tenant_id', '=', tenantId)
    .where('device_id', '=', target.deviceId)
    .$if(target.serial !== undefined, (q) => q.where('serial', '=', target.serial!))
    .where('revoked_at', 'is', null)
    .execute();

/** Revokes the given live certificates (all of a device's when `serial` is absent); the count changed. */
export async function revokeCertificates(
  db: Db,
  tenantId: string,
  target: { deviceId: string; serial?: string },
  revocation: { at: string; reason: RevocationReason; replacedBy?: string },
) {
  const result = await db
    .updateTable('device_certificates')
    .set({
      revoked_at: revocation.at,
      revocation_reason: revocation.reason,
      replaced_by: revocation.replacedBy ?? null,
    })
    .where('tenant_id', '=', tenantId)
    .where('device_id', '=', target.deviceId)
    .$if(target.serial !== undefined, (q) => q.where('serial', '=', target.serial!))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export interface ExpiryPage {
  limit: number;
  after?: { notAfter: string; serial: string } | undefined;
}

/** The tenant's certificates running out in (from, until], soonest first. */
export const expiringCertificates = (
  db: Db,
  tenantId: string,
  window: { from: string; until: string; includeRevoked: boolean },
  page: ExpiryPage,
) =>
  db
    .selectFrom('device_certificates')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('not_after', '>', window.from)
    .where('not_after', '<=', window.until)
    .$if(!window.includeRevoked, (q) => q.where('revoked_at', 'is', null))
    .$if(page.after !== undefined, (q) =>
      q.where((eb) =>
        eb(eb.refTuple('not_after', 'serial'), '>', eb.tuple(page.after!.notAfter, page.after!.serial)),
      ),
    )
    .orderBy('not_after')
    .orderBy('serial')
    .limit(page.limit)
    .execute();

/** Revoked certificates that have not run out yet (an expired one is refused anyway), CA-wide. */
export const revokedCertificates = (db: Db, now: string, since?: string) =>
  db
    .selectFrom('device_certificates')
    .select(['serial', 'revoked_at', 'revocation_reason', 'not_after'])
    .where('revoked_at', 'is not', null)
    .where('not_after', '>', now)
    .$if(since !== undefined, (q) => q.where('revoked_at', '>=', since!))
    .orderBy('revoked_at')
    .execute();

/** Which of these ids are the tenant's devices at that location. */
export async function deviceIdsAt(db: Db, tenantId: string, locationId: string, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('devices')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .where('id', 'in', ids)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * A store's sighting of its device: an enrolled device takes the presence and firmware (a
 * pending or revoked one keeps its state); last_seen_at only moves forward.
 */
export async function recordSighting(
  db: Db,
  tenantId: string,
  locationId: string,
  id: string,
  seen: { state: 'online' | 'offline'; lastSeenAt: string; firmware: string | null; updatedAt: string },
) {
  await db
    .updateTable('devices')
    .set((eb) => ({
      state: eb
        .case()
        .when('state', 'in', ['active', 'online', 'offline'])
        .then(seen.state)
        .else(eb.ref('state'))
        .end(),
      firmware_version: seen.firmware === null ? eb.ref('firmware_version') : eb.val(seen.firmware),
      last_seen_at: eb
        .case()
        .when(eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<', seen.lastSeenAt)]))
        .then(seen.lastSeenAt)
        .else(eb.ref('last_seen_at'))
        .end(),
      updated_at: seen.updatedAt,
    }))
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .where('id', '=', id)
    .execute();
}
