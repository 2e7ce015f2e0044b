/** What the rollouts need of their neighbours, and what every part of them shares. */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { SignedUpdate } from '../../shared/devices/update-manifest.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AlertingService } from '../alerting/index.ts';
import type { ConsoleFeed } from '../cockpit/index.ts';
import type { Store } from '../db/index.ts';
import type { DeviceService } from '../devices/index.ts';
import type { EventLog } from '../events/index.ts';
import type { SyncService } from '../sync/index.ts';
import type { TenancyService } from '../tenancy/index.ts';
import type { RolloutConfig } from './rollouts-config.ts';
import type { ReleaseService } from './service.ts';

/** The release a rollout installs, as the releases service knows it. */
export interface ReleaseInfo {
  id: string;
  version: string;
  retired: boolean;
}

export interface ReleaseSource {
  release(tenantId: string, releaseId: string): Promise<ReleaseInfo | undefined>;
  /** The update command's payload: the manifest signed for the tenant, its download valid this long. */
  signedManifest(tenantId: string, releaseId: string, options: { ttlSeconds: number }): Promise<SignedUpdate>;
}

export interface RolloutDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  events: EventLog;
  releases: ReleaseSource;
  devices: Pick<DeviceService, 'listDevices' | 'queueCommand' | 'command' | 'cancelCommandIn'>;
  tenancy: Pick<TenancyService, 'findLocation' | 'listLocations' | 'getGroup'>;
  /** The stores' own settings (time zone, opening hours), as they sync them. */
  sync: Pick<SyncService, 'row'>;
  alerting: Pick<AlertingService, 'ingestWithin' | 'resolveWithin'>;
  /** The operations console's live feed; rollouts' events are shown there as they commit. */
  feed?: Pick<ConsoleFeed, 'publish'> | undefined;
  options: RolloutConfig;
}

export const nowIso = (deps: Pick<RolloutDeps, 'clock'>) => deps.clock.now().toISOString();

/** The releases service as rollouts read it: a release unknown to the tenant is undefined. */
export const rolloutReleases = (releases: Pick<ReleaseService, 'get' | 'signedManifest'>): ReleaseSource => ({
  async release(tenantId, releaseId) {
    try {
      const release = await releases.get(tenantId, releaseId);
      return { id: release.id, version: release.version, retired: release.state === 'retired' };
    } catch (error) {
      if ((error as { code?: unknown }).code === 'RELEASE_NOT_FOUND') return undefined;
      throw error;
    }
  },
  signedManifest: (tenantId, releaseId, options) => releases.signedManifest(tenantId, releaseId, options),
});
