import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Store } from '../db/index.ts';
import type { DeviceCa } from './ca.ts';
import { deviceNotFound } from './errors.ts';
import type { RevocationNotices } from './revocation-notices.ts';
import { device } from './store.ts';

export interface DeviceOptions {
  /** Lifetime of an issued device certificate. */
  certificateDays: number;
}

export const DEFAULT_DEVICE_OPTIONS: DeviceOptions = { certificateDays: 90 };

/** What every part of the device service shares. */
export interface DeviceContext {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  audit?: AuditLog | undefined;
  ca: DeviceCa;
  options: DeviceOptions;
  /** Told of every certificate revoked, once its revocation committed. */
  revocations: RevocationNotices;
  /** Tenancy's answer: whether the location exists in the tenant. */
  locationExists(tenantId: string, locationId: string): Promise<boolean>;
  /** Sync's answer for an enrolling appliance: its credential (`sak_…`), shown once. */
  issueApplianceCredential?:
    | ((tenantId: string, locationId: string, applianceId: string, name: string) => Promise<string>)
    | undefined;
}

export const nowIso = (context: DeviceContext) => context.clock.now().toISOString();

/** The tenant's device, or DEVICE_NOT_FOUND: another tenant's device does not exist for the caller. */
export async function requireDevice(context: DeviceContext, tenantId: string, deviceId: string) {
  const row = await device(context.store.db, tenantId, deviceId);
  if (!row) throw deviceNotFound();
  return row;
}
