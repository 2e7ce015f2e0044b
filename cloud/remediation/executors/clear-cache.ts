/** clear_cache: the appliance empties its caches (downloaded files it can fetch again). */
import type { DeviceService } from '../../devices/index.ts';
import { fleetTarget, runFleetCommand } from './fleet.ts';
import type { RemediationExecutor } from './index.ts';

export function clearCacheExecutor(devices: DeviceService): RemediationExecutor {
  return {
    target: (tenantId, alert) => fleetTarget(devices, tenantId, alert),
    execute: (context) => runFleetCommand(devices, 'clear_cache', {}, context),
  };
}
