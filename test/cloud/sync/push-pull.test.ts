import { Buffer } from 'node:buffer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import {
  createRowDoc,
  encodeRowDoc,
  loadRowDoc,
  readFields,
  writeFields,
} from '../../../shared/sync/merge-doc.ts';
import type { Change } from '../../../shared/sync/protocol.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';

const at = '2026-06-10T19:00:00.000Z';

function orderFields(id: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    number: '1',
    business_day: '2026-06-10',
    order_type: 'takeout',
    status: 'open',
    table_label: null,
    server_id: null,
    server_name: null,
    subtotal_minor: 1000,
    tax_minor: 80,
    total_minor: 1080,
    created_at: at,
    updated_at: at,
    ...overrides,
  };
}

describe.each(backends)('sync push and pull (%s)', (backend) => {
  let cloud: TestCloud;
  let tenantId: string;
  let locationId: string;
  let otherLocationId: string;
  let credential: string;
  let adminToken: string;
  const hlc = createHlc('appliance-1');

  const change = (
    table: string,
    rowId: string,
    fields: Record<string, unknown> | null,
    extra: Partial<Change> = {},
  ): Change => ({
    change_id: newId(),
    table,
    row_id: rowId,
    op: 'insert',
    base_version: 0,
    version: 1,
    hlc: hlc.tick(),
    fields,
    ...extra,
  });

  const push = (changes: Change[], as = credential) =>
    cloud.app.inject({
      method: 'POST',
      url: '/v1/sync/push',
      headers: { authorization: `Appliance ${as}` },
      payload: { changes, queue_depth: 0 },
    });
  const pull = (cursor: number, as = credential) =>
    cloud.app.inject({
      method: 'GET',
      url: `/v1/sync/pull?cursor=${cursor}`,
      headers: { authorization: `Appliance ${as}` },
    });

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    const seeded = await seedTenant(cloud.services, 'acme');
    tenantId = seeded.tenant.id;
    locationId = seeded.location.id;
    const other = await cloud.services.tenancy.createLocation(tenantId, {
      name: 'Store 2',
      brand_id: seeded.brand.id,
      region_id: seeded.region.id,
    });
    otherLocationId = other.id;
    await cloud.services.tenancy.addUser(tenantId, {
      email: 'admin@acme.test',
      password: 'correct horse battery',
      roles: ['tenant_admin'],
    });
    adminToken = (
      await loginTokens(cloud.app, { email: 'admin@acme.test', password: 'correct horse battery' })
    ).access_token;
    const provisioned = await cloud.app.inject({
      method: 'POST',
      url: '/v1/sync/appliances',
      headers: bearer(adminToken),
      payload: { location_id: locationId, name: 'Store 1 appliance' },
    });
    expect(provisioned.statusCode).toBe(201);
    credential = provisioned.json().data.credential;
  });
  afterEach(() => cloud.close());

  it('applies a batch once, answering a repeat as a duplicate', async () => {
    const orderId = newId();
    const batch = [change('orders', orderId, orderFields(orderId))];
    const first = await push(batch);
    expect(first.statusCode).toBe(200);
    expect(first.json().data.results).toEqual([{ change_id: batch[0]!.change_id, status: 'applied' }]);
    const again = await push(batch);
    expect(again.json().data.results).toEqual([{ change_id: batch[0]!.change_id, status: 'duplicate' }]);
    // The first answer was lost and the cloud edited the row meanwhile: the repeat's answer
    // carries the row as it stands, since the store skipped that edit while the change was open.
    await cloud.services.sync.writeFromCloud(
      tenantId,
      locationId,
      'orders',
      orderId,
      orderFields(orderId, { status: 'cancelled' }),
    );
    const late = (await push(batch)).json().data.results[0];
    expect(late).toMatchObject({ status: 'duplicate', row: { version: 2, fields: { status: 'cancelled' } } });
    expect(await cloud.services.sync.row(tenantId, locationId, 'orders', orderId)).toMatchObject({
      version: 2,
      fields: { total_minor: 1080, status: 'cancelled' },
    });
  });

  it('answers the same batch pushed twice at once: applied once, the other a duplicate', async () => {
    const batch = Array.from({ length: 50 }, () => {
      const id = newId();
      return change('orders', id, orderFields(id));
    });
    const answers = await Promise.all([push(batch), push(batch), push(batch)]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    const firstStatuses = answers.map((a) => a.json().data.results[0].status).sort();
    expect(firstStatuses).toEqual(['applied', 'duplicate', 'duplicate']);
    expect(await cloud.services.sync.rows(tenantId, locationId, 'orders')).toHaveLength(50);
  });

  it('lets the cloud win a server_wins conflict, records it, and says which row stands', async () => {
    const orderId = newId();
    await push([change('orders', orderId, orderFields(orderId))]);
    await cloud.services.sync.writeFromCloud(
      tenantId,
      locationId,
      'orders',
      orderId,
      orderFields(orderId, { status: 'cancelled' }),
    );
    const stale = change('orders', orderId, orderFields(orderId, { status: 'sent' }), {
      op: 'update',
      base_version: 1,
      version: 2,
    });
    const response = await push([stale]);
    expect(response.json().data.results[0]).toMatchObject({
      status: 'conflict',
      row: { version: 2, fields: { status: 'cancelled' } },
    });
    const status = await cloud.app.inject({
      method: 'GET',
      url: `/v1/sync/status/${locationId}`,
      headers: bearer(adminToken),
    });
    expect(status.json().data).toMatchObject({
      online: true,
      conflicts_24h: 1,
      changes_24h: 2,
      conflict_rate: 0.5,
    });
  });

  it('refuses the rest of a row’s lineage once the cloud refused a version it builds on', async () => {
    const orderId = newId();
    await push([change('orders', orderId, orderFields(orderId))]);
    await cloud.services.sync.writeFromCloud(
      tenantId,
      locationId,
      'orders',
      orderId,
      orderFields(orderId, { status: 'cancelled' }),
    );
    // The store's own version 2 and 3: the cloud has a version 2 of its own, so "based on 2" in the
    // store's version 3 is not the cloud's version 2.
    const second = change('orders', orderId, orderFields(orderId, { status: 'sent' }), {
      op: 'update',
      base_version: 1,
      version: 2,
    });
    const third = change('orders', orderId, orderFields(orderId, { status: 'completed' }), {
      op: 'update',
      base_version: 2,
      version: 3,
    });
    const together = (await push([second, third])).json().data.results;
    expect(together.map((r: { status: string }) => r.status)).toEqual(['conflict', 'conflict']);

    // A resend of the refused change, then its successor, as after a crash before the answer landed.
    const fourth = change('orders', orderId, orderFields(orderId, { status: 'completed' }), {
      op: 'update',
      base_version: 3,
      version: 4,
    });
    const resent = (await push([third, fourth])).json().data.results;
    expect(resent.map((r: { status: string }) => r.status)).toEqual(['conflict', 'conflict']);
    expect(await cloud.services.sync.row(tenantId, locationId, 'orders', orderId)).toMatchObject({
      version: 2,
      fields: { status: 'cancelled' },
    });
  });

  it('feeds cloud edits to the store by cursor, and staff changes to every store of the tenant', async () => {
    // A new appliance starts from a snapshot; a cursor the feed has not reached asks for one again.
    expect((await pull(99)).json().data).toMatchObject({ reset: true });
    const snapshot = await cloud.app.inject({
      method: 'GET',
      url: '/v1/sync/snapshot',
      headers: { authorization: `Appliance ${credential}` },
    });
    const cursor = snapshot.json().data.cursor as number;
    expect(snapshot.json().data.rows.map((r: { table: string }) => r.table)).toContain('staff');

    const itemId = newId();
    await cloud.services.sync.writeFromCloud(tenantId, locationId, 'menu_items', itemId, {
      id: itemId,
      category_id: newId(),
      name: 'Burger',
      description: '',
      price_minor: 999,
      available: 1,
      updated_at: at,
    });
    await cloud.services.tenancy.addUser(tenantId, {
      email: 'cook@acme.test',
      pin: '246810',
      roles: ['staff'],
    });
    await cloud.services.sync.writeFromCloud(tenantId, otherLocationId, 'stations', 'elsewhere', {
      id: 'elsewhere',
      name: 'Grill',
      position: 0,
      updated_at: at,
    });

    const pulled = (await pull(cursor)).json().data;
    const tables = pulled.changes.map((c: { table: string }) => c.table);
    expect(tables).toEqual(['menu_items', 'staff']);
    expect(pulled.changes[1].fields).toMatchObject({ email: 'cook@acme.test', status: 'active' });
    expect(pulled.changes[1].fields.pin_hash).toMatch(/^\$argon2id\$/);
  });

  it('merges concurrent punch edits field by field, returning the merged row when the cloud had more', async () => {
    const punchId = newId();
    const doc = createRowDoc(77);
    const fields = {
      id: punchId,
      staff_id: newId(),
      kind: 'clock_in',
      at,
      note: null,
      corrected_by: null,
      reason: null,
      created_at: at,
    };
    writeFields(doc, fields, hlc.tick());
    const encoded = () => Buffer.from(encodeRowDoc(doc)).toString('base64');
    await push([change('time_punches', punchId, readFields(doc), { doc: encoded() })]);

    await cloud.services.sync.writeFromCloud(tenantId, locationId, 'time_punches', punchId, {
      note: 'payroll checked',
    });
    writeFields(doc, { at: '2026-06-10T18:55:00.000Z', reason: 'forgot to clock in' }, hlc.tick());
    const response = await push([
      change('time_punches', punchId, readFields(doc), {
        op: 'update',
        base_version: 1,
        version: 2,
        doc: encoded(),
      }),
    ]);
    const result = response.json().data.results[0];
    expect(result.status).toBe('applied');
    expect(result.row.fields).toMatchObject({
      note: 'payroll checked',
      at: '2026-06-10T18:55:00.000Z',
      reason: 'forgot to clock in',
    });
    const merged = loadRowDoc(Buffer.from(result.row.doc, 'base64'), 77);
    expect(readFields(merged)).toEqual(result.row.fields);
  });

  it('applies a change from a store whose clock runs days ahead, without taking its clock in', async () => {
    const orderId = newId();
    const ahead = createHlc('appliance-fast', () => Date.now() + 3 * 86_400_000).tick();
    const response = await push([change('orders', orderId, orderFields(orderId), { hlc: ahead })]);
    expect(response.statusCode).toBe(200);
    expect(response.json().data.results[0].status).toBe('applied');
    expect(response.json().data.server_hlc < ahead).toBe(true);
  });

  it('refuses bad batches whole, changing nothing', async () => {
    const orderId = newId();
    const good = change('orders', orderId, orderFields(orderId));
    const cases: Array<[string, Change[], number, string]> = [
      ['unknown table', [good, change('secrets', 'x', { id: 'x' })], 400, 'INVALID_BATCH'],
      ['down-only table', [good, change('staff', 'x', { id: 'x' })], 400, 'INVALID_BATCH'],
      [
        'malformed fields',
        [good, change('orders', 'y', orderFields('y', { total_minor: '10.80' }))],
        400,
        'INVALID_BATCH',
      ],
      ['missing field', [good, change('orders', 'z', { id: 'z' })], 400, 'INVALID_BATCH'],
      ['key differs from row id', [good, change('orders', 'a', orderFields('b'))], 400, 'INVALID_BATCH'],
      [
        'another location',
        [good, change('location_settings', otherLocationId, { location_id: otherLocationId })],
        400,
        'INVALID_BATCH',
      ],
      [
        'reused change id',
        [good, { ...good, fields: orderFields(orderId, { status: 'sent' }) }],
        400,
        'INVALID_BATCH',
      ],
    ];
    for (const [name, changes, status, code] of cases) {
      const response = await push(changes);
      expect(response.statusCode, name).toBe(status);
      expect(response.json().error.code, name).toBe(code);
      expect(response.json().error.details.length, name).toBeGreaterThan(0);
    }
    const tooMany = Array.from({ length: 1001 }, () => good);
    expect((await push(tooMany)).statusCode).toBe(413);
    expect(await cloud.services.sync.row(tenantId, locationId, 'orders', orderId)).toBeUndefined();

    await push([good]);
    const reused = await push([{ ...good, fields: orderFields(orderId, { status: 'sent' }) }]);
    expect(reused.statusCode).toBe(409);
    expect(reused.json().error.code).toBe('CHANGE_ID_REUSED');
  });

  it('keeps each store to its own rows and refuses unknown or revoked credentials', async () => {
    const orderId = newId();
    await push([change('orders', orderId, orderFields(orderId))]);
    const other = await cloud.services.sync.provisionAppliance(tenantId, { location_id: otherLocationId });
    const foreign = await push(
      [
        change('orders', orderId, orderFields(orderId, { status: 'cancelled' }), {
          op: 'update',
          base_version: 1,
          version: 2,
        }),
      ],
      other.credential,
    );
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.code).toBe('OUT_OF_SCOPE');
    expect((await cloud.services.sync.row(tenantId, locationId, 'orders', orderId))?.version).toBe(1);

    expect((await push([change('orders', orderId, orderFields(orderId))], 'sak_nope.nope')).statusCode).toBe(
      401,
    );
    const [mine] = await cloud.services.sync.listAppliances(tenantId, locationId);
    const revoke = await cloud.app.inject({
      method: 'DELETE',
      url: `/v1/sync/appliances/${mine!.id}`,
      headers: bearer(adminToken),
    });
    expect(revoke.statusCode).toBe(204);
    expect((await pull(1)).statusCode).toBe(401);
  });

  it('shows the backlog the appliance reports with its pulls, waits and pushes', async () => {
    const oldest = new Date(cloud.clock.now().getTime() - 90_000).toISOString();
    await cloud.app.inject({
      method: 'GET',
      url: `/v1/sync/pull?cursor=0&queue_depth=640&oldest_pending_at=${encodeURIComponent(oldest)}`,
      headers: { authorization: `Appliance ${credential}` },
    });
    const status = () =>
      cloud.app
        .inject({ method: 'GET', url: `/v1/sync/status/${locationId}`, headers: bearer(adminToken) })
        .then((r) => r.json().data);
    expect(await status()).toMatchObject({ queue_depth: 640, oldest_pending_at: oldest, lag_seconds: 90 });
    const orderId = newId();
    await push([change('orders', orderId, orderFields(orderId))]);
    expect(await status()).toMatchObject({ queue_depth: 0, oldest_pending_at: null, lag_seconds: 0 });
    const bad = await cloud.app.inject({
      method: 'GET',
      url: '/v1/sync/wait?timeout_seconds=0&queue_depth=-1',
      headers: { authorization: `Appliance ${credential}` },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('keeps tenants apart: another tenant’s admin and appliance reach nothing of this store', async () => {
    const orderId = newId();
    await push([change('orders', orderId, orderFields(orderId))]);
    const other = await seedTenant(cloud.services, 'globex');
    await cloud.services.tenancy.addUser(other.tenant.id, {
      email: 'admin@globex.test',
      password: 'correct horse battery',
      roles: ['tenant_admin'],
    });
    const theirToken = (
      await loginTokens(cloud.app, { email: 'admin@globex.test', password: 'correct horse battery' })
    ).access_token;
    const asThem = (method: 'GET' | 'POST', url: string, payload?: object) =>
      cloud.app.inject({ method, url, headers: bearer(theirToken), ...(payload ? { payload } : {}) });
    expect((await asThem('GET', `/v1/sync/status/${locationId}`)).statusCode).toBe(404);
    expect((await asThem('GET', `/v1/sync/conflicts/${locationId}`)).statusCode).toBe(404);
    expect((await asThem('POST', '/v1/sync/trigger', { location_id: locationId })).statusCode).toBe(404);
    expect((await asThem('POST', '/v1/sync/appliances', { location_id: locationId })).statusCode).toBe(404);
    const theirs = (await asThem('GET', '/v1/sync/appliances')).json().data;
    expect(theirs).toEqual([]);

    // Their store's appliance cannot write this store's row, nor read it in its feed or snapshot.
    const { credential: theirCredential } = await cloud.services.sync.provisionAppliance(other.tenant.id, {
      location_id: other.location.id,
    });
    const foreign = await push(
      [
        change('orders', orderId, orderFields(orderId, { status: 'cancelled' }), {
          op: 'update',
          base_version: 1,
          version: 2,
        }),
      ],
      theirCredential,
    );
    expect(foreign.statusCode).toBe(403);
    const snapshot = await cloud.app.inject({
      method: 'GET',
      url: '/v1/sync/snapshot',
      headers: { authorization: `Appliance ${theirCredential}` },
    });
    expect(JSON.stringify(snapshot.json().data.rows)).not.toContain(orderId);
    expect((await cloud.services.sync.row(tenantId, locationId, 'orders', orderId))?.fields).toMatchObject({
      status: 'open',
    });
  });

  it('wakes the appliance’s open wait when a manager triggers a sync', async () => {
    const waiting = cloud.app.inject({
      method: 'GET',
      url: '/v1/sync/wait?timeout_seconds=10',
      headers: { authorization: `Appliance ${credential}` },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const trigger = await cloud.app.inject({
      method: 'POST',
      url: '/v1/sync/trigger',
      headers: bearer(adminToken),
      payload: { location_id: locationId, priority: 'high' },
    });
    expect(trigger.statusCode).toBe(202);
    const woke = await waiting;
    expect(woke.json().data).toEqual({ triggered: true, priority: 'high' });
  });

  it('answers open waits at once when the gateway shuts down', async () => {
    const url = await cloud.app.listen({ host: '127.0.0.1', port: 0 });
    const waiting = fetch(`${url}/v1/sync/wait?timeout_seconds=30`, {
      headers: { authorization: `Appliance ${credential}` },
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await cloud.app.close();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(((await (await waiting).json()) as { data: unknown }).data).toEqual({
      triggered: false,
      priority: null,
    });
  });
});
