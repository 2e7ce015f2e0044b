/** What the Stores screens ask the cloud, each a documented route of docs/api/cloud.md. */
import { ApiError, query } from '../../api.ts';
import { api } from '../../session.ts';
import type {
  Device,
  FleetStore,
  FleetStoreDetail,
  Location,
  Named,
  Paged,
  StoreCamera,
  SyncStatus,
  VisionCamera,
} from './types.ts';

/** The list answers up to this many stores at once, so a fleet of hundreds loads in one request. */
export const STORES_PAGE = 500;
const NAMES_PAGE = 200;
/** Certificates that run out within this many days count as expiring (the fleet list's rule). */
const EXPIRING_DAYS = 30;

export interface StoreFilters {
  brand_id?: string | undefined;
  region_id?: string | undefined;
  status?: string | undefined;
  q?: string | undefined;
  cursor?: string | undefined;
}

export async function loadStores(filters: StoreFilters, signal: AbortSignal) {
  const answer = await api.get<Paged<FleetStore>>(
    `/v1/fleet/stores${query({ ...filters, limit: STORES_PAGE })}`,
    signal,
  );
  return { stores: answer.data, nextCursor: answer.meta?.pagination?.next_cursor ?? null };
}

/** Every page of a named list (brands, regions); a tenant has a handful, so a page or two. */
async function allNamed(path: string, signal?: AbortSignal): Promise<Named[]> {
  const out: Named[] = [];
  let cursor: string | null | undefined;
  do {
    const page = await api.get<Paged<Named>>(`${path}${query({ limit: NAMES_PAGE, cursor })}`, signal);
    out.push(...page.data.map(({ id, name }) => ({ id, name })));
    cursor = page.meta?.pagination?.next_cursor;
  } while (cursor);
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export interface Names {
  brands: Named[];
  regions: Named[];
  brand: Map<string, string>;
  region: Map<string, string>;
}

let namesCache: { at: number; promise: Promise<Names> } | undefined;
const NAMES_TTL_MS = 60_000;

/** Brands and regions by id, kept a minute: the list and each store page need the same few names. */
export function loadNames(): Promise<Names> {
  if (namesCache && Date.now() - namesCache.at < NAMES_TTL_MS) return namesCache.promise;
  const promise = Promise.all([allNamed('/v1/platform/brands'), allNamed('/v1/platform/regions')]).then(
    ([brands, regions]) => ({
      brands,
      regions,
      brand: new Map(brands.map((b) => [b.id, b.name])),
      region: new Map(regions.map((r) => [r.id, r.name])),
    }),
  );
  namesCache = { at: Date.now(), promise };
  promise.catch(() => {
    namesCache = undefined;
  });
  return promise;
}

/** Every device of a store (a store has tens at most; pages of 200 until the last). */
export async function loadDevices(locationId: string, signal?: AbortSignal): Promise<Device[]> {
  const out: Device[] = [];
  let cursor: string | null | undefined;
  do {
    const page = await api.get<Paged<Device>>(
      `/v1/mdm/devices${query({ location_id: locationId, limit: NAMES_PAGE, cursor })}`,
      signal,
    );
    out.push(...page.data);
    cursor = page.meta?.pagination?.next_cursor;
  } while (cursor);
  return out;
}

export async function loadCameras(locationId: string, signal?: AbortSignal): Promise<VisionCamera[]> {
  const answer = await api.data<{ cameras: VisionCamera[] }>(
    `/api/vision/cameras${query({ location_id: locationId })}`,
    signal,
  );
  return answer.cameras;
}

/** The store's appliance: the enrolled, unrevoked `appliance` device enrolled last, as a rollout takes it. */
export function applianceOf(devices: readonly Device[]): Device | undefined {
  return devices
    .filter((d) => d.device_type === 'appliance' && d.state !== 'revoked' && d.enrolled_at)
    .sort((a, b) => (b.enrolled_at ?? '').localeCompare(a.enrolled_at ?? ''))[0];
}

function deviceSummary(devices: readonly Device[], now: number) {
  const live = devices.filter((d) => d.state !== 'revoked');
  const until = now + EXPIRING_DAYS * 86_400_000;
  const expiring = live.filter((d) => {
    const at = d.certificate_expires_at ? Date.parse(d.certificate_expires_at) : Number.NaN;
    return at > now && at <= until;
  });
  return {
    devices_total: live.length,
    devices_offline: live.filter((d) => d.state === 'offline').length,
    certificates_expiring_30d: expiring.length,
    appliance_version: applianceOf(devices)?.firmware_version ?? null,
  };
}

/** Without the fleet route: the same row put together from the location, its sync, devices and cameras. */
async function composeStore(id: string, signal: AbortSignal): Promise<FleetStoreDetail> {
  const path = encodeURIComponent(id);
  const [location, sync, devices, cameras] = await Promise.all([
    api.data<Location>(`/v1/platform/locations/${path}`, signal),
    api.data<SyncStatus>(`/v1/sync/status/${path}`, signal),
    loadDevices(id, signal),
    loadCameras(id, signal).catch((): StoreCamera[] => []),
  ]);
  return {
    ...sync,
    location_id: location.id,
    name: location.name,
    brand_id: location.brand_id,
    region_id: location.region_id,
    timezone: location.timezone,
    address: location.address,
    location_status: location.status,
    queue_depth: sync.last_seen_at === null ? null : sync.queue_depth,
    lag_seconds: sync.last_seen_at === null ? null : sync.lag_seconds,
    cameras: cameras.map(({ id: cameraId, name, status, fps }) => ({ id: cameraId, name, status, fps })),
    ...deviceSummary(devices, Date.now()),
  };
}

/**
 * One store's status from the fleet route. It is for tenant administrators; a manager who may read
 * the store's sync status and devices gets the same figures from those routes instead.
 */
export async function loadStore(id: string, signal: AbortSignal): Promise<FleetStoreDetail> {
  try {
    return await api.data<FleetStoreDetail>(`/v1/fleet/stores/${encodeURIComponent(id)}`, signal);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 403) throw error;
    return composeStore(id, signal);
  }
}

export const loadSyncStatus = (id: string, signal?: AbortSignal) =>
  api.data<SyncStatus>(`/v1/sync/status/${encodeURIComponent(id)}`, signal);

/** A query string with a parameter repeated, as the orders route takes several statuses. */
export function repeated(params: Record<string, string | number | undefined>, key: string, values: string[]) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(name, String(value));
  for (const value of values) search.append(key, value);
  return `?${search.toString()}`;
}
