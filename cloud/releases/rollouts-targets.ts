/**
 * A rollout's target as stores with an appliance: the tenant's active locations the target names
 * (every list given narrows it: brand_ids and region_ids together mean those brands' stores in
 * those regions), each with its enrolled appliance. A store without one cannot take an update and
 * is left out.
 */
import type { ErrorDetail } from '../../shared/http/errors.ts';
import type { LocationRow } from '../tenancy/index.ts';
import type { RolloutDeps } from './rollouts-context.ts';
import { invalidTarget } from './rollouts-errors.ts';

export type Target =
  | { all: true }
  | {
      brand_ids?: string[] | undefined;
      region_ids?: string[] | undefined;
      location_ids?: string[] | undefined;
    };

export interface TargetStore {
  location_id: string;
  device_id: string;
  from_version: string | null;
}

type Deps = Pick<RolloutDeps, 'tenancy' | 'devices'>;
const PAGE = 500;

async function everyLocation(deps: Deps, tenantId: string) {
  const all: LocationRow[] = [];
  for (let after: string | undefined; ; ) {
    const { items } = await deps.tenancy.listLocations(tenantId, {
      limit: PAGE,
      ...(after ? { after } : {}),
    });
    all.push(...items);
    if (items.length < PAGE) return all;
    after = items.at(-1)!.id;
  }
}

async function missingGroups(deps: Deps, tenantId: string, kind: 'brands' | 'regions', ids: string[]) {
  const problems: ErrorDetail[] = [];
  for (const [index, id] of ids.entries()) {
    const found = await deps.tenancy.getGroup(kind, tenantId, id).then(
      () => true,
      () => false,
    );
    if (!found)
      problems.push({
        field: `body.target.${kind === 'brands' ? 'brand' : 'region'}_ids[${index}]`,
        message: 'does not exist in this tenant',
      });
  }
  return problems;
}

/** The targeted active locations, by id, or in the order of `location_ids` when given. */
async function targetLocations(deps: Deps, tenantId: string, target: Target) {
  const all = (await everyLocation(deps, tenantId)).filter((location) => location.status === 'active');
  if ('all' in target) return all;
  const problems = [
    ...(await missingGroups(deps, tenantId, 'brands', target.brand_ids ?? [])),
    ...(await missingGroups(deps, tenantId, 'regions', target.region_ids ?? [])),
  ];
  const byId = new Map(all.map((location) => [location.id, location]));
  for (const [index, id] of (target.location_ids ?? []).entries())
    if (!byId.has(id) && !(await deps.tenancy.findLocation(tenantId, id)))
      problems.push({
        field: `body.target.location_ids[${index}]`,
        message: 'does not exist in this tenant',
      });
  if (problems.length > 0) throw invalidTarget(problems);
  const brands = target.brand_ids && new Set(target.brand_ids);
  const regions = target.region_ids && new Set(target.region_ids);
  const named = target.location_ids
    ? [...new Set(target.location_ids)].flatMap((id) => byId.get(id) ?? [])
    : all;
  return named.filter(
    (location) => (!brands || brands.has(location.brand_id)) && (!regions || regions.has(location.region_id)),
  );
}

/**
 * Each store's appliance: enrolled and not revoked; of several, the one enrolled last (the fleet
 * link carries a store's command to every appliance of the store anyway).
 */
async function appliancesByStore(deps: Deps, tenantId: string) {
  const byStore = new Map<string, { id: string; enrolled_at: string; firmware_version: string | null }>();
  for (let cursor: string | undefined; ; ) {
    const page = await deps.devices.listDevices(
      tenantId,
      { deviceType: 'appliance' },
      { limit: 200, cursor },
    );
    for (const device of page.items) {
      if (device.state === 'revoked' || device.state === 'pending_activation' || !device.enrolled_at)
        continue;
      const held = byStore.get(device.location_id);
      if (!held || held.enrolled_at < device.enrolled_at)
        byStore.set(device.location_id, {
          id: device.id,
          enrolled_at: device.enrolled_at,
          firmware_version: device.firmware_version,
        });
    }
    if (!page.nextCursor) return byStore;
    cursor = page.nextCursor;
  }
}

export async function resolveTarget(deps: Deps, tenantId: string, target: Target) {
  const locations = await targetLocations(deps, tenantId, target);
  const appliances = await appliancesByStore(deps, tenantId);
  const stores: TargetStore[] = locations.flatMap((location) => {
    const appliance = appliances.get(location.id);
    return appliance
      ? [{ location_id: location.id, device_id: appliance.id, from_version: appliance.firmware_version }]
      : [];
  });
  return { stores, locations: locations.length };
}
