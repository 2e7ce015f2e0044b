import type Database from 'better-sqlite3';
import * as changeLog from './0001-change-log.ts';
import * as staff from './0002-staff.ts';
import * as menu from './0003-menu.ts';
import * as location from './0004-location.ts';
import * as orders from './0005-orders.ts';
import * as payments from './0006-payments.ts';
import * as inventory from './0007-inventory.ts';
import * as timeclock from './0008-timeclock.ts';
import * as kitchen from './0009-kitchen.ts';
import * as sync from './0010-sync.ts';
import * as locationUpsert from './0011-location-upsert.ts';
import * as cloudNames from './0012-cloud-names.ts';
import * as fleetCommands from './0013-fleet-commands.ts';
import * as deviceRegistry from './0014-device-registry.ts';
import * as fleetSettings from './0015-fleet-settings.ts';
import * as visionCameras from './0016-vision-cameras.ts';
import * as visionHistory from './0017-vision-history.ts';
import * as visionReviews from './0018-vision-reviews.ts';
import * as ordersNewestFirst from './0019-orders-newest-first.ts';
import * as cloudStationNames from './0020-cloud-station-names.ts';

export interface ApplianceMigration {
  version: number;
  name: string;
  up(db: Database.Database): void;
  /**
   * The migration rebuilds tables others refer to: it runs with foreign keys off (SQLite's way;
   * dropping the old table would otherwise delete through its references) and commits only if
   * every reference still holds afterwards.
   */
  rebuildsTables?: boolean;
}

/** Applied in version order, each in its own transaction; never edit one that has shipped. */
export const migrations: ApplianceMigration[] = [
  changeLog.migration,
  staff.migration,
  menu.migration,
  location.migration,
  orders.migration,
  payments.migration,
  inventory.migration,
  timeclock.migration,
  kitchen.migration,
  sync.migration,
  locationUpsert.migration,
  cloudNames.migration,
  fleetCommands.migration,
  deviceRegistry.migration,
  fleetSettings.migration,
  visionCameras.migration,
  visionHistory.migration,
  visionReviews.migration,
  ordersNewestFirst.migration,
  cloudStationNames.migration,
];
