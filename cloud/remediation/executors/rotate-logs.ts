/** rotate_logs: the appliance closes its log files under new names and starts fresh ones. */
import type { DeviceService } from '../../devices/index.ts';
import { fleetTarget, runFleetCommand } from './fleet.ts';
import type { RemediationExecutor } from './index.ts';

export function rotateLogsExecutor(devices: DeviceService): RemediationExecutor {
  return {
    target: (tenantId, alert) => fleetTarget(devices, tenantId, alert),
    execute: (context) => runFleetCommand(devices, 'rotate_logs', {}, context),
  };
}
