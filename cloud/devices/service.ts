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
import { createRevocationNotices } from './revocation-notices.ts';
import { createSummaries } from './summaries.ts';
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
 * and `markPresence`, and hears of revoked certificates through `onCertificatesRevoked`; synced
 * store rows reach `applyStoreDevices` and `recordStoreMinutes`; the routes call the rest.
 */
export function createDeviceService(deps: DeviceServiceDeps) {
  const ca = createDeviceCa({
    db: deps.store.db,
    isUniqueViolation: deps.store.isUniqueViolation,
    clock: deps.clock,
    certificateDays: deps.options.certificateDays,
  });
  const log = deps.log.child({ module: 'devices' });
  const revocations = createRevocationNotices(log);
  const context: DeviceContext = { ...deps, log, ca, revocations };
  return {
    /** Told of certificates as they are revoked (after commit, on this replica); answers the way to stop. */
    onCertificatesRevoked: revocations.on,
    ...createRegistry(context),
    ...createCertificates(context),
    ...createCommands(context),
    ...createTelemetry(context),
    ...createSummaries(context),
  };
}

export type DeviceService = ReturnType<typeof createDeviceService>;
