import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import { createRowDoc, encodeRowDoc, type FieldValue, writeFields } from '../../../shared/sync/merge-doc.ts';
import type { Change } from '../../../shared/sync/protocol.ts';
import { SYNC_TABLES, type SyncTableName } from '../../../shared/sync/registry.ts';
import { bearer, createTestCloud, loginTokens, type TestCloud } from '../../support/cloud.ts';

const PASSWORD = 'correct-horse-battery';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Call = (
  method: Method,
  path: string,
  payload?: unknown,
  headers?: Record<string, string>,
) => Promise<LightMyRequestResponse>;

export const callerOf =
  (cloud: TestCloud, token?: string): Call =>
  (method, url, payload, headers = {}) =>
    cloud.app.inject({
      method,
      url,
      ...(payload !== undefined ? { payload: payload as string } : {}),
      headers: { ...(token ? bearer(token) : {}), ...headers },
    });

export async function member(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  await cloud.services.tenancy.addUser(tenantId, { email, password: PASSWORD, roles });
  const tokens = await loginTokens(cloud.app, { email, password: PASSWORD });
  return { id: tokens.user.id, token: tokens.access_token, call: callerOf(cloud, tokens.access_token) };
}

export type Row =
  | readonly [SyncTableName, Record<string, unknown>]
  | readonly [SyncTableName, Record<string, unknown>, 'delete'];

/** The store deleting a row (a delete carries the row's key only, and no fields). */
export const removal = (table: SyncTableName, rowId: string) =>
  [table, { [SYNC_TABLES[table].key]: rowId }, 'delete'] as const satisfies Row;

/** A store's appliance pushing rows through the real /v1/sync/push, each row at its next version. */
export function storePusher(cloud: TestCloud, credential: string) {
  const hlc = createHlc(`appliance-${credential.slice(4, 12)}`);
  const versions = new Map<string, number>();
  const encode = (table: SyncTableName, fields: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(fields).map(([column, value]) => [
        column,
        (SYNC_TABLES[table].columns as Record<string, string>)[column] === 'json' && typeof value !== 'string'
          ? JSON.stringify(value)
          : value,
      ]),
    );
  const change = ([table, fields, op]: Row): Change => {
    const rowId = String(fields[SYNC_TABLES[table].key]);
    const key = `${table}/${rowId}`;
    const version = (versions.get(key) ?? 0) + 1;
    versions.set(key, version);
    const stamp = hlc.tick();
    const encoded = op === 'delete' ? null : encode(table, fields);
    const merged: Partial<Change> = {};
    if (encoded && SYNC_TABLES[table].strategy === 'merge') {
      const doc = createRowDoc(7);
      writeFields(doc, encoded as Record<string, FieldValue>, stamp);
      merged.doc = Buffer.from(encodeRowDoc(doc)).toString('base64');
    }
    return {
      change_id: newId(),
      table,
      row_id: rowId,
      op: op ?? (version === 1 ? 'insert' : 'update'),
      base_version: version - 1,
      version,
      hlc: stamp,
      fields: encoded,
      ...merged,
    } as Change;
  };
  return async function push(rows: readonly Row[]) {
    for (let i = 0; i < rows.length; i += 100) {
      const response = await cloud.app.inject({
        method: 'POST',
        url: '/v1/sync/push',
        headers: { authorization: `Appliance ${credential}` },
        payload: {
          changes: rows.slice(i, i + 100).map(change),
          queue_depth: 0,
        },
      });
      expect(response.statusCode, response.body).toBe(200);
      const results = response.json().data.results as Array<{ status: string; reason?: string }>;
      for (const result of results) expect(result.status, JSON.stringify(result)).toBe('applied');
    }
  };
}

export const at = (day: string, time: string) => `${day}T${time}:00.000Z`;

export const order = (day: string, fields: { id?: string; status?: string; subtotal: number }) => {
  const id = fields.id ?? newId();
  return [
    'orders',
    {
      id,
      number: id.slice(-4),
      business_day: day,
      order_type: 'dine_in',
      status: fields.status ?? 'completed',
      table_label: null,
      server_id: null,
      server_name: null,
      subtotal_minor: fields.subtotal,
      tax_minor: 0,
      total_minor: fields.subtotal,
      created_at: at(day, '12:00'),
      updated_at: at(day, '12:00'),
    },
  ] as const satisfies Row;
};

export const item = (
  orderId: string,
  menuItemId: string,
  quantity: number,
  unitPrice: number,
  id = newId(),
) =>
  [
    'order_items',
    {
      id,
      order_id: orderId,
      menu_item_id: menuItemId,
      name: 'Item',
      quantity,
      unit_price_minor: unitPrice,
      modifiers: [],
      notes: null,
      status: 'complete',
      position: 1,
      updated_at: '2026-01-01T00:00:00.000Z',
    },
  ] as const satisfies Row;

export const payment = (orderId: string, amount: number, refunded = 0, id = newId()) =>
  [
    'payments',
    {
      id,
      order_id: orderId,
      method: 'card',
      status: 'captured',
      amount_minor: amount,
      tip_minor: 0,
      refunded_minor: refunded,
      card_brand: 'visa',
      card_last4: '4242',
      transaction_id: null,
      failure_reason: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    },
  ] as const satisfies Row;

export const punch = (staffId: string, kind: string, when: string, id = newId()) =>
  [
    'time_punches',
    { id, staff_id: staffId, kind, at: when, note: null, corrected_by: null, reason: null, created_at: when },
  ] as const satisfies Row;

export const menuItem = (id: string, categoryId: string) =>
  [
    'menu_items',
    {
      id,
      category_id: categoryId,
      name: `Menu ${id}`,
      description: '',
      price_minor: 100,
      available: 1,
      updated_at: '2026-01-01T00:00:00.000Z',
    },
  ] as const satisfies Row;

export const recipe = (menuItemId: string, components: Array<[string, number]>) =>
  [
    'recipes',
    {
      menu_item_id: menuItemId,
      components: components.map(([inventory_item_id, quantity_milli]) => ({
        inventory_item_id,
        quantity_milli,
      })),
    },
  ] as const satisfies Row;

/** A tenant with brands, regions and stores, each store with a sync credential. */
export async function seedChain(
  cloud: TestCloud,
  slug: string,
  shape: {
    brands: string[];
    regions: string[];
    stores: Array<{ name: string; brand: number; region: number }>;
  },
) {
  const tenancy = cloud.services.tenancy;
  const tenant = await tenancy.createTenant({ slug, name: `Tenant ${slug}`, tier: 'professional' });
  const brands = [];
  for (const name of shape.brands) brands.push(await tenancy.createGroup('brands', tenant.id, name));
  const regions = [];
  for (const name of shape.regions) regions.push(await tenancy.createGroup('regions', tenant.id, name));
  const stores = [];
  for (const store of shape.stores) {
    const location = await tenancy.createLocation(tenant.id, {
      name: store.name,
      brand_id: brands[store.brand]!.id,
      region_id: regions[store.region]!.id,
    });
    const appliance = await cloud.services.sync.provisionAppliance(tenant.id, {
      location_id: location.id,
      name: store.name,
    });
    stores.push({ ...location, push: storePusher(cloud, appliance.credential) });
  }
  return { tenant, brands, regions, stores };
}

export async function pnlCloud(backend: 'sqlite' | 'pg') {
  return createTestCloud(backend, { config: { rateLimit: false } });
}

export function ok(response: LightMyRequestResponse, status = 200) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body.success).toBe(true);
  return body.data;
}

export function refused(response: LightMyRequestResponse, status: number, detail?: string | RegExp) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(Object.keys(body)).toEqual(['detail']);
  expect(typeof body.detail).toBe('string');
  if (typeof detail === 'string') expect(body.detail).toBe(detail);
  else if (detail) expect(body.detail).toMatch(detail);
  return body.detail as string;
}
