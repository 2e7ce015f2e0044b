/** restart_service: restarts one of an appliance's services (the whole appliance by default). */
import type { DeviceService } from '../../devices/index.ts';
import { fleetTarget, runFleetCommand } from './fleet.ts';
import type { RemediationExecutor } from './index.ts';

/**
 * A service name as the appliance knows it: `appliance` (the whole process, through its
 * supervisor) always; others as the appliance registers them (appliance/fleet/maintenance.ts).
 * An appliance refuses a name it does not know, which fails the remediation with its reason.
 */
const SERVICE_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

export function restartServiceExecutor(devices: DeviceService): RemediationExecutor {
  return {
    validate(parameters) {
      const service = parameters.service;
      if (service === undefined || (typeof service === 'string' && SERVICE_NAME.test(service)))
        return undefined;
      return { field: 'service', message: 'must be a service name such as appliance (lower case, up to 32)' };
    },
    target: (tenantId, alert) => fleetTarget(devices, tenantId, alert),
    execute: (context) =>
      runFleetCommand(
        devices,
        'restart_service',
        { service: context.parameters.service ?? 'appliance' },
        context,
      ),
  };
}
