import { NotFoundError } from '../../shared/http/errors.ts';
import type { DeviceService, StoreDeviceSummary } from '../devices/index.ts';
import type { SyncService, SyncStatus } from '../sync/index.ts';
import type { LocationRow, TenancyService } from '../tenancy/index.ts';
import type { VisionService } from '../vision/index.ts';
import type { Store, StoreDetail, StoreQuery } from './schemas.ts';

/** What the overview reads of each domain that knows something about a store. */
export interface FleetOverviewDeps {
  tenancy: Pick<TenancyService, 'listLocations' | 'findLocation'>;
  sync: Pick<SyncService, 'statuses' | 'onlineLocations'>;
  devices: Pick<DeviceService, 'storeSummaries'>;
  vision: Pick<VisionService, 'camerasAt'>;
}

/** What each domain knows of one store. */
interface Facts {
  sync: SyncStatus;
  devices: StoreDeviceSummary;
  cameras: Array<{ id: string; name: string; status: 'online' | 'offline'; fps: number }>;
}

function toStore(location: LocationRow, { sync, devices, cameras }: Facts): Store {
  // Queue and lag are the appliance's own report: a store never heard from has none.
  const heard = sync.last_seen_at !== null;
  return {
    location_id: location.id,
    name: location.name,
    brand_id: location.brand_id,
    region_id: location.region_id,
    timezone: location.timezone,
    online: sync.online,
    last_seen_at: sync.last_seen_at,
    last_push_at: sync.last_push_at,
    last_pull_at: sync.last_pull_at,
    queue_depth: heard ? sync.queue_depth : null,
    oldest_pending_at: sync.oldest_pending_at,
    lag_seconds: heard ? sync.lag_seconds : null,
    conflict_rate: sync.conflict_rate,
    conflicts_24h: sync.conflicts_24h,
    changes_24h: sync.changes_24h,
    devices_total: devices.devices_total,
    devices_offline: devices.devices_offline,
    cameras: cameras.map((camera) => ({
      id: camera.id,
      name: camera.name,
      status: camera.status,
      fps: camera.fps,
    })),
    certificates_expiring_30d: devices.certificates_expiring,
    appliance_version: devices.appliance_version,
  };
}

const locationNotFound = () => new NotFoundError('Location', 'LOCATION_NOT_FOUND');

/**
 * Every store of a tenant with its live state, composed from tenancy (the stores), sync (contact,
 * queue, lag, conflicts), MDM (devices, certificates, appliance version) and vision (cameras): one
 * set-based read per domain for a whole page, never one per store.
 */
export function createFleetOverview(deps: FleetOverviewDeps) {
  async function factsOf(tenantId: string, locationIds: readonly string[]) {
    const [sync, devices, cameras] = await Promise.all([
      deps.sync.statuses(tenantId, locationIds),
      deps.devices.storeSummaries(tenantId, locationIds),
      deps.vision.camerasAt(tenantId, locationIds),
    ]);
    return (id: string): Facts => ({
      sync: sync.get(id)!,
      devices: devices.get(id)!,
      cameras: cameras.get(id)!,
    });
  }

  /** The status filter as locations to keep or leave out: the stores online now, from sync. */
  async function statusFilter(tenantId: string, status: StoreQuery['status']) {
    if (status === undefined) return {};
    const online = await deps.sync.onlineLocations(tenantId);
    return status === 'online' ? { ids: online } : { notIds: online };
  }

  return {
    /** A page of the tenant's stores, in creation order; `cursor` is the previous page's next_cursor. */
    async list(tenantId: string, query: StoreQuery) {
      const page = await deps.tenancy.listLocations(
        tenantId,
        { limit: query.limit, after: query.cursor },
        {
          brandId: query.brand_id,
          regionId: query.region_id,
          nameContains: query.q,
          ...(await statusFilter(tenantId, query.status)),
        },
      );
      const facts = await factsOf(
        tenantId,
        page.items.map((location) => location.id),
      );
      return {
        items: page.items.map((location) => toStore(location, facts(location.id))),
        nextCursor: page.nextCursor,
      };
    },

    /** One store, with what its own page shows besides; another tenant's store is not found. */
    async get(tenantId: string, locationId: string): Promise<StoreDetail> {
      const location = await deps.tenancy.findLocation(tenantId, locationId);
      if (!location) throw locationNotFound();
      const facts = (await factsOf(tenantId, [locationId]))(locationId);
      return {
        ...toStore(location, facts),
        address: location.address,
        location_status: location.status,
        feed_seq: facts.sync.feed_seq,
        pulled_cursor: facts.sync.pulled_cursor,
        pending_down: facts.sync.pending_down,
        trigger_pending: facts.sync.trigger_pending,
      };
    },
  };
}

export type FleetOverview = ReturnType<typeof createFleetOverview>;
