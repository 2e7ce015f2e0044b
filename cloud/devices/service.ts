import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Store } from '../db/index.ts';
import { createDeviceCa } from './ca.ts';
import { createCertificates } from './certificates.ts';
import { createCommands } from './commands.ts';
import type { DeviceContext, DeviceOptions } from './context.ts';
import { createRegistry } from './registry.ts';
import { createTelemetry } from './telemetry.ts';

export interface DeviceServiceDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  audit?: AuditLog | undefined;
  options: DeviceOptions;
  locationExists(tenantId: string, locationId: string): Promise<boolean>;
  issueApplianceCredential?: DeviceContext['issueApplianceCredential'];
}

/**
 * The device plane's cloud side in one service: the registry, the CA and certificates, commands and
 * telemetry. The fleet link calls `queueCommand`, `commandsFor`, `updateCommand`
 * and `markPresence`; synced store rows reach `applyStoreDevices` and `recordStoreMinutes`; the routes
 * call the rest.
 */
export function createDeviceService(deps: DeviceServiceDeps) {
  const ca = createDeviceCa({
    db: deps.store.db,
    isUniqueViolation: deps.store.isUniqueViolation,
    clock: deps.clock,
    certificateDays: deps.options.certificateDays,
  });
  const context: DeviceContext = { ...deps, log: deps.log.child({ module: 'devices' }), ca };
  return {
    ...createRegistry(context),
    ...createCertificates(context),
    ...createCommands(context),
    ...createTelemetry(context),
  };
}

export type DeviceService = ReturnType<typeof createDeviceService>;
