/**
 * A real appliance in the bench process: its SQLite store in a fresh temporary dir, its services as
 * appliance/app.ts builds them (so the outbox holds what a store really writes), and the sync client
 * and replica the worker uses, pointed at the cloud child over loopback HTTP.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApplianceServices } from '../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createSyncClient } from '../../../appliance/sync/client.ts';
import { createReplica } from '../../../appliance/sync/replica.ts';
import type { Clock } from '../../../shared/clock.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';
import type { BenchStore } from './control.ts';

// As createApplianceSync (appliance/sync/index.ts) sets them; batch size and window come from the config.
const PULL_LIMIT = 1000;
const REQUEST_TIMEOUT_MS = 30_000;

/** Wall time shifted by an offset the bench moves: a store that lived through days in seconds. */
export interface TravelClock extends Clock {
  /** Sets the offset from now, e.g. -72 h. */
  set(offsetMs: number): void;
  advance(ms: number): void;
}

export function createTravelClock(offsetMs = 0): TravelClock {
  let offset = offsetMs;
  return {
    now: () => new Date(Date.now() + offset),
    set(ms) {
      offset = ms;
    },
    advance(ms) {
      offset += ms;
    },
  };
}

export type BenchAppliance = Awaited<ReturnType<typeof openBenchAppliance>>;

// A bench stopped by a signal exits without running its finally blocks: its stores go with it.
const openDirs = new Set<string>();
process.on('exit', () => {
  for (const dir of openDirs) rmSync(dir, { recursive: true, force: true });
});

export async function openBenchAppliance(store: BenchStore, cloudUrl: string, clock = createTravelClock()) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-sync-appliance-'));
  openDirs.add(dir);
  const db = openApplianceDb(dir);
  const config = loadApplianceConfig({
    TENANT_ID: store.tenant_id,
    LOCATION_ID: store.location_id,
    APPLIANCE_DATA_DIR: dir,
    CLOUD_URL: cloudUrl,
    APPLIANCE_CLOUD_CREDENTIAL: store.credential,
    LOG_LEVEL: 'warn',
  });
  const services = createApplianceServices(config, {
    db,
    clock,
    newId,
    hasher: createSecretHasher({ memoryCost: 1024, timeCost: 1 }),
  });
  const replica = createReplica(db, services.changes.docClientId);
  const client = createSyncClient(
    db,
    replica,
    { clock, observe: (stamp) => services.changes.observe(stamp) },
    {
      cloudUrl,
      credential: store.credential,
      batchSize: config.sync.batchSize,
      maxInFlight: config.sync.maxInFlight,
      pullLimit: PULL_LIMIT,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    },
  );
  return {
    store,
    dir,
    db,
    config,
    services,
    client,
    clock,
    async close() {
      await client.close();
      db.close();
      await rm(dir, { recursive: true, force: true });
      openDirs.delete(dir);
    },
  };
}

const ANY_STORE = '00000000-0000-7000-8000-000000000000';
const DEFAULTS = loadApplianceConfig({ TENANT_ID: ANY_STORE, LOCATION_ID: ANY_STORE }).sync;

/** The sync settings every bench appliance runs with: the appliance's defaults. */
export const syncSettings = {
  batchSize: DEFAULTS.batchSize,
  inFlight: DEFAULTS.maxInFlight,
  pullLimit: PULL_LIMIT,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
};

/** Outbox rows the cloud has not answered yet. */
export const unanswered = (db: ApplianceDatabase) =>
  (db.prepare('select count(*) as n from outbox where pushed_at is null').get() as { n: number }).n;

/**
 * Seeding is not measured, so the store skips fsync while it is filled: a 100,000-order offline day
 * then takes a minute instead of several. It is back at FULL before anything is timed.
 */
export async function withoutFsync<T>(db: ApplianceDatabase, work: () => Promise<T> | T): Promise<T> {
  db.pragma('synchronous = OFF');
  try {
    return await work();
  } finally {
    db.pragma('synchronous = FULL');
  }
}
