/**
 * Adds the manager the bench signs in as to a running appliance's store (its data dir from the same
 * environment the appliance runs with), as the cloud's staff sync would deliver one: a new store
 * has no staff, and registering cameras is a manager's. Run once with tsx, after the idle measure.
 */
import { createApplianceServices } from '../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { openApplianceDb } from '../../../appliance/db/index.ts';
import { systemClock } from '../../../shared/clock.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';

export const FOOTPRINT_MANAGER = { identifier: 'footprint', pin: '246813' };

async function main() {
  const config = loadApplianceConfig(process.env);
  const db = openApplianceDb(config.dataDir);
  try {
    const services = createApplianceServices(config, {
      db,
      clock: systemClock,
      newId,
      hasher: createSecretHasher(),
    });
    await services.auth.upsertStaff({
      id: newId(),
      email: 'footprint@store.test',
      username: FOOTPRINT_MANAGER.identifier,
      displayName: 'Footprint',
      roles: ['manager'],
      pin: FOOTPRINT_MANAGER.pin,
      version: 1,
    });
  } finally {
    db.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stderr.write(`seed-manager: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
