/**
 * What one domain asks another, answered the way the asker wants it: whether a location or a
 * tenant is there, a location's name, a device or nothing. A domain's own reads say not-found with a
 * 404; its neighbours take `undefined` or `false` and decide for themselves.
 */
import { AppError } from '../../shared/http/errors.ts';
import type { DeviceService } from '../devices/index.ts';
import type { TenancyService } from '../tenancy/index.ts';

async function undefinedWhenNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return undefined;
    throw error;
  }
}

export const locationExists = (tenancy: TenancyService) => async (tenantId: string, locationId: string) =>
  (await tenancy.findLocation(tenantId, locationId)) !== undefined;

export const locationName = (tenancy: TenancyService) => async (tenantId: string, locationId: string) =>
  (await tenancy.findLocation(tenantId, locationId))?.name;

export const tenantActive = (tenancy: TenancyService) => async (tenantId: string) =>
  (await undefinedWhenNotFound(tenancy.getTenant(tenantId)))?.status === 'active';

export const deviceOrNothing = (devices: DeviceService) => (tenantId: string, deviceId: string) =>
  undefinedWhenNotFound(devices.getDevice(tenantId, deviceId));
