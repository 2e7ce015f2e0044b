import { expect } from 'vitest';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import type { TestCloud } from '../../support/cloud.ts';
import { member } from '../pnl/pnl-cloud.ts';

export type Reply = { statusCode: number; body: string; json(): { data: unknown; error?: { code: string } } };

export const data = <T = Record<string, unknown>>(response: Reply, status = 200) => {
  expect(response.statusCode, response.body).toBe(status);
  return response.json().data as T;
};

export const code = (response: Reply, status: number) => {
  expect(response.statusCode, response.body).toBe(status);
  return response.json().error?.code;
};

export type Change = {
  seq: number;
  table: string;
  row_id: string;
  version: number;
  fields: Record<string, unknown>;
};

let seq = 0;

/**
 * A tenant with two brands: two stores of Burgers, one of Tacos, each with an appliance
 * credential; a tenant admin, and a manager of no store in particular.
 */
export async function seedTenant(cloud: TestCloud, prefix: string) {
  const slug = `${prefix}-${++seq}-${newId().slice(0, 6)}`;
  const tenancy = cloud.services.tenancy;
  const tenant = await tenancy.createTenant({ slug, name: `Tenant ${slug}`, tier: 'professional' });
  const burgers = await tenancy.createGroup('brands', tenant.id, 'Burgers');
  const tacos = await tenancy.createGroup('brands', tenant.id, 'Tacos');
  const region = await tenancy.createGroup('regions', tenant.id, 'East');
  const store = async (name: string, brandId: string) => {
    const location = await tenancy.createLocation(tenant.id, {
      name,
      brand_id: brandId,
      region_id: region.id,
    });
    const appliance = await cloud.services.sync.provisionAppliance(tenant.id, {
      location_id: location.id,
      name,
    });
    return { id: location.id, credential: appliance.credential };
  };
  const stores = [
    await store('North', burgers.id),
    await store('South', burgers.id),
    await store('Taco', tacos.id),
  ];
  const admin = await member(cloud, tenant.id, `admin@${slug}.test`, ['tenant_admin']);
  const manager = await member(cloud, tenant.id, `manager@${slug}.test`, ['manager']);
  const addStore = (name: string, brandId = burgers.id) => store(name, brandId);
  return { tenant, burgers, tacos, region, stores, admin, manager, addStore };
}

export type Seeded = Awaited<ReturnType<typeof seedTenant>>;
export type Call = Seeded['admin']['call'];

export async function pull(cloud: TestCloud, credential: string, cursor = 0) {
  const response = await cloud.app.inject({
    method: 'GET',
    url: `/v1/sync/pull?cursor=${cursor}&limit=1000`,
    headers: { authorization: `Appliance ${credential}` },
  });
  return data<{ changes: Change[]; cursor: number }>(response);
}

/** The store's rows of a table as its pulls leave them: the last change of each row. */
export async function pulledRows(cloud: TestCloud, credential: string, table: string) {
  const rows = new Map<string, Record<string, unknown>>();
  for (const change of (await pull(cloud, credential)).changes)
    if (change.table === table) rows.set(change.row_id, change.fields);
  return rows;
}

export async function snapshot(cloud: TestCloud, credential: string) {
  return data<{ rows: Array<{ table: string; row_id: string; fields: Record<string, unknown> }> }>(
    await cloud.app.inject({
      method: 'GET',
      url: '/v1/sync/snapshot?limit=1000',
      headers: { authorization: `Appliance ${credential}` },
    }),
  );
}

/** A store's appliance pushing inserts, each change exactly as given (a repeat keeps its change id). */
export function rawPusher(cloud: TestCloud, credential: string) {
  const hlc = createHlc(`appliance-${credential.slice(4, 12)}`);
  const insert = (table: string, fields: Record<string, unknown>, changeId = newId()) => ({
    change_id: changeId,
    table,
    row_id: String(fields.id),
    op: 'insert',
    base_version: 0,
    version: 1,
    hlc: hlc.tick(),
    fields,
  });
  return {
    insert,
    async push(changes: Array<ReturnType<typeof insert>>) {
      const response = await cloud.app.inject({
        method: 'POST',
        url: '/v1/sync/push',
        headers: { authorization: `Appliance ${credential}` },
        payload: { changes, queue_depth: 0 },
      });
      return data<{ results: Array<{ status: string }> }>(response).results.map((r) => r.status);
    },
  };
}
