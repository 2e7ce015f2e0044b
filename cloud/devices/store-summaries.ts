/**
 * What the registry knows of many stores at once, one grouped query each: their devices by state,
 * their certificates running out, and their appliances' firmware. The tenant comes first.
 */
import type { Db } from '../db/index.ts';

/** Registered devices not revoked, and those of them the store's broker or the fleet link last saw go. */
export const deviceCounts = (db: Db, tenantId: string, locationIds: readonly string[]) =>
  db
    .selectFrom('devices')
    .select((eb) => [
      'location_id',
      eb.fn.countAll<number>().as('total'),
      eb.fn.sum<number>(eb.case().when('state', '=', 'offline').then(1).else(0).end()).as('offline'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('location_id', 'in', locationIds)
    .where('state', '<>', 'revoked')
    .groupBy('location_id')
    .execute();

/** Live certificates of the stores' devices running out in (from, until], per store. */
export const expiringCertificateCounts = (
  db: Db,
  tenantId: string,
  locationIds: readonly string[],
  window: { from: string; until: string },
) =>
  db
    .selectFrom('device_certificates')
    .innerJoin('devices', 'devices.id', 'device_certificates.device_id')
    .select((eb) => ['devices.location_id', eb.fn.countAll<number>().as('expiring')])
    .where('device_certificates.tenant_id', '=', tenantId)
    .where('devices.tenant_id', '=', tenantId)
    .where('devices.location_id', 'in', locationIds)
    .where('device_certificates.revoked_at', 'is', null)
    .where('device_certificates.not_after', '>', window.from)
    .where('device_certificates.not_after', '<=', window.until)
    .groupBy('devices.location_id')
    .execute();

/** The stores' enrolled appliances (holding a certificate, not revoked) with their firmware. */
export const enrolledAppliances = (db: Db, tenantId: string, locationIds: readonly string[]) =>
  db
    .selectFrom('devices')
    .select(['location_id', 'enrolled_at', 'firmware_version'])
    .where('tenant_id', '=', tenantId)
    .where('location_id', 'in', locationIds)
    .where('device_type', '=', 'appliance')
    .where('state', 'in', ['active', 'online', 'offline'])
    .where('enrolled_at', 'is not', null)
    .execute();
