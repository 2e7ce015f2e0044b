/**
 * What a store's broker knows of its devices reaches the cloud's device registry: the synced
 * store_devices rows (presence, last sighting, firmware) and device_telemetry_minutes (the
 * telemetry `/v1/iot` answers from), applied in the transaction of the push that brought them.
 */
import type { Fields } from '../../shared/sync/registry.ts';
import type { DeviceService, StoreDevice, StoreMinute } from '../devices/index.ts';
import type { SyncService } from '../sync/index.ts';

/** An appliance enrolled as a device gets its sync credential from the same enrolment, named by its id. */
export const applianceCredentials =
  (sync: SyncService) => async (tenantId: string, locationId: string, applianceId: string, name: string) =>
    (await sync.provisionAppliance(tenantId, { location_id: locationId, id: applianceId, name })).credential;

export function linkStoreDevices(sync: SyncService, devices: DeviceService) {
  sync.observe('store_devices', (trx, scope, rows) =>
    devices.applyStoreDevices(
      trx,
      scope.tenantId,
      scope.locationId,
      rows.map(({ fields }) => fields as Fields & StoreDevice),
    ),
  );
  sync.observe('device_telemetry_minutes', async (trx, scope, rows) => {
    await devices.recordStoreMinutes(
      trx,
      scope.tenantId,
      scope.locationId,
      rows.map(({ fields }) => fields as Fields & StoreMinute),
    );
  });
}
