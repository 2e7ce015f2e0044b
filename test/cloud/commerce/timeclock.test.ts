import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import {
  createRowDoc,
  encodeRowDoc,
  type FieldValue,
  loadRowDoc,
  mergeUpdate,
  readFields,
  writeFields,
} from '../../../shared/sync/merge-doc.ts';
import { bearer, createTestCloud, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { callerOf, member, punch, type Row, storePusher } from '../pnl/pnl-cloud.ts';

let seq = 0;

/** The settings row a store's appliance syncs: New York time, its day starting at 04:00. */
const settings = (locationId: string, timezone = 'America/New_York') =>
  [
    'location_settings',
    {
      location_id: locationId,
      name: 'North',
      timezone,
      currency: 'USD',
      tax_rate_bps: 0,
      business_day_starts_at: '04:00',
      status: 'open',
      hours: {},
      updated_at: '2026-01-01T00:00:00.000Z',
    },
  ] as const satisfies Row;

/**
 * A tenant with two stores: North has synced its own settings (New York), South has not, so its
 * days follow its time zone in tenancy (Tokyo) and the appliance's 04:00 start.
 */
async function seedGroup(cloud: TestCloud) {
  const slug = `punches-${++seq}-${newId().slice(0, 6)}`;
  const tenancy = cloud.services.tenancy;
  const tenant = await tenancy.createTenant({ slug, name: `Tenant ${slug}`, tier: 'professional' });
  const brand = await tenancy.createGroup('brands', tenant.id, 'Burgers');
  const region = await tenancy.createGroup('regions', tenant.id, 'East');
  const stores = [];
  for (const [name, timezone] of [
    ['North', 'UTC'],
    ['South', 'Asia/Tokyo'],
  ] as const) {
    const location = await tenancy.createLocation(tenant.id, {
      name,
      brand_id: brand.id,
      region_id: region.id,
      timezone,
    });
    const appliance = await cloud.services.sync.provisionAppliance(tenant.id, {
      location_id: location.id,
      name,
    });
    stores.push({
      id: location.id,
      credential: appliance.credential,
      push: storePusher(cloud, appliance.credential),
    });
  }
  await stores[0]!.push([settings(stores[0]!.id)]);
  const admin = await member(cloud, tenant.id, `admin@${slug}.test`, ['tenant_admin']);
  const manager = await member(cloud, tenant.id, `manager@${slug}.test`, ['manager']);
  const staff = await member(cloud, tenant.id, `staff@${slug}.test`, ['staff']);
  return { tenant, stores, admin, manager, staff };
}

/** A manager whose session is for one store: signed in by PIN at that store. */
async function storeManager(cloud: TestCloud, tenantId: string, locationId: string) {
  const email = `store-${newId().slice(-8)}@example.test`;
  await cloud.services.tenancy.addUser(tenantId, { email, pin: '135790', roles: ['manager'] });
  const response = await cloud.app.inject({
    method: 'POST',
    url: '/v1/auth/login/pin',
    payload: { identifier: email, pin: '135790', location_id: locationId },
  });
  expect(response.statusCode, response.body).toBe(200);
  return callerOf(cloud, response.json().status.access_token);
}

const data = (response: { statusCode: number; body: string; json(): { data: unknown } }, status = 200) => {
  expect(response.statusCode, response.body).toBe(status);
  return response.json().data as Record<string, unknown>;
};

const ids = (page: Record<string, unknown>) => (page.items as Array<{ id: string }>).map((p) => p.id);

describe.each(backends)('head office time clock (%s)', (backend) => {
  let cloud: TestCloud;
  let group: Awaited<ReturnType<typeof seedGroup>>;
  let other: Awaited<ReturnType<typeof seedGroup>>;
  const north = () => group.stores[0]!;
  const south = () => group.stores[1]!;

  beforeAll(async () => {
    cloud = await createTestCloud(backend, { config: { rateLimit: false } });
    group = await seedGroup(cloud);
    other = await seedGroup(cloud);
  });
  afterAll(() => cloud.close());

  it('lists punches in time order with the store’s fields, on each store’s own business day', async () => {
    const g = await seedGroup(cloud);
    const ann = newId();
    const bob = newId();
    // North, New York: 01:30 on the 11th is still the 10th's business day; 04:10 is the 11th's.
    const lateOut = punch(ann, 'clock_out', '2026-06-11T05:30:00.000Z');
    const earlyIn = punch(bob, 'clock_in', '2026-06-11T08:10:00.000Z');
    const annIn = punch(ann, 'clock_in', '2026-06-10T21:00:00.000Z');
    await g.stores[0]!.push([lateOut, earlyIn, annIn]);
    // South, Tokyo by tenancy: 03:30 local on the 11th is the 10th's; 04:30 the 11th's.
    const night = punch(bob, 'clock_out', '2026-06-10T18:30:00.000Z');
    const morning = punch(bob, 'clock_in', '2026-06-10T19:30:00.000Z');
    await g.stores[1]!.push([night, morning]);

    const all = data(await g.manager.call('GET', '/v1/commerce/punches'));
    expect(ids(all)).toEqual([night[1].id, morning[1].id, annIn[1].id, lateOut[1].id, earlyIn[1].id]);
    expect((all.items as unknown[])[2]).toEqual({
      id: annIn[1].id,
      location_id: g.stores[0]!.id,
      staff_id: ann,
      kind: 'clock_in',
      at: '2026-06-10T21:00:00.000Z',
      note: null,
      corrected_by: null,
      reason: null,
      created_at: '2026-06-10T21:00:00.000Z',
      version: 1,
    });
    expect(all.next_cursor).toBeNull();

    const list = async (query: string) =>
      ids(data(await g.admin.call('GET', `/v1/commerce/punches?${query}`)));
    expect(await list(`location_id=${g.stores[0]!.id}&business_day=2026-06-10`)).toEqual([
      annIn[1].id,
      lateOut[1].id,
    ]);
    expect(await list(`location_id=${g.stores[0]!.id}&business_day=2026-06-11`)).toEqual([earlyIn[1].id]);
    expect(await list(`location_id=${g.stores[1]!.id}&business_day=2026-06-10`)).toEqual([night[1].id]);
    expect(await list('business_day=2026-06-11')).toEqual([morning[1].id, earlyIn[1].id]);
    expect(await list(`staff_id=${ann}`)).toEqual([annIn[1].id, lateOut[1].id]);
    expect(await list(`staff_id=${bob}&location_id=${g.stores[1]!.id}`)).toEqual([
      night[1].id,
      morning[1].id,
    ]);
  });

  it('pages with next_cursor without losing or repeating a punch', async () => {
    const g = await seedGroup(cloud);
    const staffId = newId();
    const rows = Array.from({ length: 17 }, (_, i) =>
      punch(
        staffId,
        i % 2 ? 'clock_out' : 'clock_in',
        `2026-07-01T1${i % 10}:${String(i).padStart(2, '0')}:00.000Z`,
      ),
    );
    // Two punches at one instant: the id breaks the tie.
    rows.push(punch(newId(), 'clock_in', rows[3]![1].at));
    await g.stores[0]!.push(rows);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = data(
        await g.manager.call(
          'GET',
          `/v1/commerce/punches?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        ),
      );
      seen.push(...ids(page));
      cursor = page.next_cursor as string | null;
    } while (cursor);
    expect(seen).toHaveLength(18);
    expect(new Set(seen).size).toBe(18);
  });

  it('corrects a punch: only the changed fields, as the caller, and the store’s feed carries it', async () => {
    const staffId = newId();
    const row = punch(staffId, 'clock_in', '2026-06-12T13:00:00.000Z');
    await north().push([row]);
    const url = `/v1/commerce/punches/${row[1].id}`;
    const corrected = data(
      await group.manager.call('PATCH', url, { at: '2026-06-12T12:45:00Z', reason: '  forgot to clock in ' }),
    );
    expect(corrected).toMatchObject({
      id: row[1].id,
      location_id: north().id,
      at: '2026-06-12T12:45:00.000Z',
      kind: 'clock_in',
      note: null,
      corrected_by: group.manager.id,
      reason: 'forgot to clock in',
      version: 2,
    });
    const changedKind = data(
      await group.admin.call('PATCH', url, {
        kind: 'break_end',
        note: 'was back from break',
        reason: 'wrong kind',
      }),
    );
    expect(changedKind).toMatchObject({
      kind: 'break_end',
      note: 'was back from break',
      corrected_by: group.admin.id,
    });
    // Nothing changes: nothing is written.
    expect(data(await group.admin.call('PATCH', url, { kind: 'break_end', reason: 'again' }))).toMatchObject({
      version: 3,
      reason: 'wrong kind',
    });

    const response = await cloud.app.inject({
      method: 'GET',
      url: '/v1/sync/pull?cursor=0&limit=1000',
      headers: { authorization: `Appliance ${north().credential}` },
    });
    const feed = (
      response.json().data.changes as Array<{ row_id: string; fields: Record<string, unknown> }>
    ).filter((c) => c.row_id === row[1].id);
    expect(feed.map((c) => [c.fields.at, c.fields.kind])).toEqual([
      ['2026-06-12T12:45:00.000Z', 'clock_in'],
      ['2026-06-12T12:45:00.000Z', 'break_end'],
    ]);
  });

  it('keeps the store’s edit of the note made before it pulled head office’s correction of the time', async () => {
    // The store's appliance: its own Yjs client, and a clock behind head office's, so its edit of
    // the note is older than the correction: had head office written the whole row, it would win.
    const hlc = createHlc('appliance-north', () => Date.now() - 3_600_000);
    const fields: Record<string, FieldValue> = {
      id: newId(),
      staff_id: newId(),
      kind: 'clock_out',
      at: '2026-06-13T22:00:00.000Z',
      note: null,
      corrected_by: null,
      reason: null,
      created_at: '2026-06-13T22:00:00.000Z',
    };
    const doc = createRowDoc(7);
    writeFields(doc, fields, hlc.tick());
    const push = async (version: number, state: Uint8Array, stamp: string) => {
      const response = await cloud.app.inject({
        method: 'POST',
        url: '/v1/sync/push',
        headers: { authorization: `Appliance ${north().credential}` },
        payload: {
          changes: [
            {
              change_id: newId(),
              table: 'time_punches',
              row_id: fields.id,
              op: version === 1 ? 'insert' : 'update',
              base_version: version - 1,
              version,
              hlc: stamp,
              fields: readFields(loadRowDoc(state, 7)),
              doc: Buffer.from(state).toString('base64'),
            },
          ],
          queue_depth: 0,
        },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data.results[0] as { status: string; row?: { fields: Record<string, unknown> } };
    };
    expect((await push(1, encodeRowDoc(doc), hlc.tick())).status).toBe('applied');

    // The store adds a note; before it pushes or pulls, payroll moves the clock-out.
    const noted = hlc.tick();
    writeFields(doc, { note: 'stayed to close' }, noted);
    data(
      await group.manager.call('PATCH', `/v1/commerce/punches/${fields.id}`, {
        at: '2026-06-13T23:30:00.000Z',
        reason: 'closed late',
      }),
    );
    const answer = await push(2, encodeRowDoc(doc), noted);
    expect(answer.status).toBe('applied');
    expect(answer.row?.fields).toMatchObject({ at: '2026-06-13T23:30:00.000Z', note: 'stayed to close' });

    const both = { at: '2026-06-13T23:30:00.000Z', note: 'stayed to close', reason: 'closed late' };
    const cloudRow = await cloud.services.sync.row(
      group.tenant.id,
      north().id,
      'time_punches',
      String(fields.id),
    );
    expect(cloudRow?.fields).toMatchObject({ ...both, corrected_by: group.manager.id });
    const listed = data(
      await group.admin.call('GET', `/v1/commerce/punches?location_id=${north().id}&business_day=2026-06-13`),
    );
    expect((listed.items as Array<Record<string, unknown>>).find((p) => p.id === fields.id)).toMatchObject(
      both,
    );

    // The store pulls the correction and merges it into its own document: both edits stand.
    const pulled = await cloud.app.inject({
      method: 'GET',
      url: '/v1/sync/pull?cursor=0&limit=1000',
      headers: { authorization: `Appliance ${north().credential}` },
    });
    const change = (pulled.json().data.changes as Array<{ row_id: string; doc?: string }>).findLast(
      (c) => c.row_id === fields.id,
    )!;
    mergeUpdate(doc, Buffer.from(change.doc!, 'base64'));
    expect(readFields(doc)).toMatchObject(both);
  });

  it('refuses bad queries and corrections with a clear 400', async () => {
    for (const query of [
      'limit=0',
      'limit=201',
      'cursor=nope',
      'business_day=2026-02-30',
      'staff_id=bob',
      'location_id=not-a-uuid',
      'color=red',
    ]) {
      const response = await group.manager.call('GET', `/v1/commerce/punches?${query}`);
      expect(response.statusCode, `${query}: ${response.body}`).toBe(400);
    }
    const row = punch(newId(), 'clock_in', '2026-06-14T13:00:00.000Z');
    await north().push([row]);
    const url = `/v1/commerce/punches/${row[1].id}`;
    for (const body of [
      {},
      { at: '2026-06-14T12:00:00Z' },
      { reason: 'nothing to change' },
      { at: 'yesterday', reason: 'x' },
      { at: '2026-13-14T12:00:00Z', reason: 'x' },
      { kind: 'lunch', reason: 'x' },
      { note: '', reason: 'x' },
      { note: 'n'.repeat(501), reason: 'x' },
      { at: '2026-06-14T12:00:00Z', reason: '' },
      { at: '2026-06-14T12:00:00Z', reason: '   ' },
      { at: '2026-06-14T12:00:00Z', reason: 'r'.repeat(501) },
      { at: '2026-06-14T12:00:00Z', reason: 'x', corrected_by: 'someone else' },
    ]) {
      const response = await group.manager.call('PATCH', url, body);
      expect(response.statusCode, `${JSON.stringify(body)}: ${response.body}`).toBe(400);
    }
    expect(
      (await group.manager.call('PATCH', '/v1/commerce/punches/nope', { reason: 'x', note: 'y' })).statusCode,
    ).toBe(400);
    expect(
      data(await group.admin.call('GET', `/v1/commerce/punches?staff_id=${row[1].staff_id}`)).items,
    ).toEqual([expect.objectContaining({ version: 1, at: '2026-06-14T13:00:00.000Z' })]);
  });

  it('keeps tenants apart: another tenant’s admin neither reads nor corrects a punch', async () => {
    const row = punch(newId(), 'clock_in', '2026-06-15T13:00:00.000Z');
    await north().push([row]);
    const url = `/v1/commerce/punches/${row[1].id}`;
    const stranger = other.admin;
    const refused = await stranger.call('PATCH', url, { at: '2026-06-15T09:00:00Z', reason: 'payroll' });
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error.code).toBe('PUNCH_NOT_FOUND');
    expect(data(await stranger.call('GET', `/v1/commerce/punches?location_id=${north().id}`)).items).toEqual(
      [],
    );
    expect(ids(data(await stranger.call('GET', `/v1/commerce/punches?staff_id=${row[1].staff_id}`)))).toEqual(
      [],
    );
    expect(
      (await group.manager.call('PATCH', `/v1/commerce/punches/${newId()}`, { note: 'x', reason: 'y' }))
        .statusCode,
    ).toBe(404);
    expect(
      data(await group.admin.call('GET', `/v1/commerce/punches?staff_id=${row[1].staff_id}`)).items,
    ).toEqual([expect.objectContaining({ version: 1, corrected_by: null })]);
  });

  it('shows a store-bound session its own store only', async () => {
    const northPunch = punch(newId(), 'clock_in', '2026-06-16T13:00:00.000Z');
    const southPunch = punch(newId(), 'clock_in', '2026-06-16T13:00:00.000Z');
    await north().push([northPunch]);
    await south().push([southPunch]);
    const atNorth = await storeManager(cloud, group.tenant.id, north().id);
    const mine = ids(data(await atNorth('GET', '/v1/commerce/punches?business_day=2026-06-16')));
    expect(mine).toEqual([northPunch[1].id]);
    expect(data(await atNorth('GET', `/v1/commerce/punches?location_id=${south().id}`)).items).toEqual([]);
    const elsewhere = await atNorth('PATCH', `/v1/commerce/punches/${southPunch[1].id}`, {
      note: 'x',
      reason: 'y',
    });
    expect(elsewhere.statusCode).toBe(404);
    expect(
      data(await atNorth('PATCH', `/v1/commerce/punches/${northPunch[1].id}`, { note: 'x', reason: 'y' })),
    ).toMatchObject({
      note: 'x',
    });
  });

  it('admits managers and admins only', async () => {
    const row = punch(newId(), 'clock_in', '2026-06-17T13:00:00.000Z');
    await north().push([row]);
    expect((await group.staff.call('GET', '/v1/commerce/punches')).statusCode).toBe(403);
    expect(
      (await group.staff.call('PATCH', `/v1/commerce/punches/${row[1].id}`, { note: 'x', reason: 'y' }))
        .statusCode,
    ).toBe(403);
    expect((await cloud.app.inject({ method: 'GET', url: '/v1/commerce/punches' })).statusCode).toBe(401);
    expect(
      (
        await cloud.app.inject({
          method: 'PATCH',
          url: `/v1/commerce/punches/${row[1].id}`,
          payload: { note: 'x', reason: 'y' },
          headers: bearer('not-a-token'),
        })
      ).statusCode,
    ).toBe(401);
  });
});
