/**
 * The appliance's end of the fleet link (issue 6): its MQTT connection to the cloud's broker, the
 * journal that makes each command act once, and what each command does here: sync now, restart
 * (itself, or a store device through its broker), settings, signed over-the-air updates (each new
 * version checked in a process of its own before the switch, and confirmed by itself after it), and
 * device certificates the cloud revoked (also fetched again each time the link comes back).
 */

import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { ActionBoard } from '../actions/index.ts';
import type { FleetSettings } from '../config.ts';
import type { ApplianceDatabase } from '../db/index.ts';
import type { DeviceCommands, DeviceRegistry } from '../devices/index.ts';
import type { SyncRound } from '../sync/index.ts';
import { createFleetHandlers, type FleetRevocations, type FleetVision } from './handlers.ts';
import { createCommandJournal } from './journal.ts';
import { createApplianceFleetLink } from './link.ts';
import { createMaintenance } from './maintenance.ts';
import { createSettingsStore } from './settings.ts';
import { createUpdater } from './updater.ts';

export { settleInstall } from './confirm.ts';
export type { FleetRevocations, FleetVision } from './handlers.ts';
export {
  type CheckedAppliance,
  checkHealthAnswered,
  checkMigrations,
  type HealthReport,
  runHealthCheck,
} from './health-check.ts';
export { type ApplianceFleetLink, createApplianceFleetLink } from './link.ts';
export { createSettingsStore, type PushedSettings, type SettingsStore } from './settings.ts';

export interface ApplianceFleetDeps {
  db: ApplianceDatabase;
  clock: Clock;
  log: Logger;
  tenantId: string;
  dataDir: string;
  /** The running bundle's version (its package.json): what the fleet link reports. */
  version: string;
  /**
   * The environment the appliance was configured from: an update's health check starts the new
   * version with it (without it, the check's start fails on its configuration).
   */
  env?: Record<string, string | undefined> | undefined;
  syncNow: (() => Promise<SyncRound | undefined>) | undefined;
  restartSelf: () => void;
  devices: DeviceRegistry;
  deviceCommands: DeviceCommands | undefined;
  /** The camera pipeline (calibration, model syncs); absent where none runs. */
  vision?: FleetVision | undefined;
  restartDelayMs?: number | undefined;
  /** Where the store's screens watch long commands (a model sync, an update) move. */
  actions?: ActionBoard | undefined;
  /** The store broker's revocation list: fed by pushes, fetched again whenever the link is back. */
  revocations?: FleetRevocations | undefined;
}

async function tlsFiles(tls: FleetSettings['tls']) {
  if (!tls) return undefined;
  const [key, cert, ca] = await Promise.all(
    [tls.keyFile, tls.certFile, tls.caFile].map((file) => readFile(file)),
  );
  return { key: key!, cert: cert!, ca: ca! };
}

/** Builds the link (not connected yet: `start()` connects, and keeps trying while the cloud is away). */
export async function createApplianceFleet(settings: FleetSettings, deps: ApplianceFleetDeps) {
  const log = deps.log.child({ module: 'fleet' });
  const updater = settings.updatePublicKeyFile
    ? createUpdater({
        dataDir: deps.dataDir,
        publicKey: await readFile(settings.updatePublicKeyFile, 'utf8'),
        runningVersion: deps.version,
        env: deps.env ?? {},
        clock: deps.clock,
        log,
      })
    : undefined;
  if (!updater) log.warn('APPLIANCE_UPDATE_PUBLIC_KEY is not set: over-the-air updates will be refused');
  const recovered = await updater?.recover();
  if (recovered) log.warn({ outcome: recovered }, 'an update cut short by a stop was settled');
  const store = createSettingsStore(deps.db, deps.clock);
  const link = createApplianceFleetLink({
    url: settings.url,
    tls: await tlsFiles(settings.tls),
    username: settings.applianceId,
    password: settings.credential,
    tenantId: deps.tenantId,
    applianceId: settings.applianceId,
    prefix: settings.prefix,
    version: deps.version,
    journal: createCommandJournal(deps.db),
    handlers: createFleetHandlers({
      ...deps,
      settings: store,
      updater,
      maintenance: createMaintenance({
        dataDir: deps.dataDir,
        clock: deps.clock,
        restartSelf: deps.restartSelf,
        restartDelayMs: deps.restartDelayMs,
      }),
    }),
    clock: deps.clock,
    log,
    actions: deps.actions,
    onConnected: () => {
      deps.revocations
        ?.refresh()
        .catch((error: unknown) =>
          log.warn({ err: error }, 'revocation list not fetched on reconnect; the poll will try again'),
        );
    },
  });
  return {
    link,
    settings: store,
    updater,
    /** Reads the TLS files again after the appliance's certificate was renewed. */
    async renewTls() {
      const tls = await tlsFiles(settings.tls);
      if (tls) link.renewTls(tls);
    },
  };
}

export type ApplianceFleet = Awaited<ReturnType<typeof createApplianceFleet>>;
