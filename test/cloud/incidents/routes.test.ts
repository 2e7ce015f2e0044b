import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedTenant } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { member } from '../devices/device-client.ts';
import {
  expectError,
  expectOk,
  type Incident,
  type IncidentCloud,
  incidentBody,
  incidentCloud,
  raise,
  registerSensor,
} from './incident-cloud.ts';

describe.each(backends)('incidents over HTTP on %s', (backend) => {
  let context: IncidentCloud;
  beforeAll(async () => {
    context = await incidentCloud(backend);
  });
  afterAll(() => context.cloud.close());

  const sensorA = () => registerSensor(context.adminA, context.a.location.id);

  it('opens an incident from the device form, titled after the device and the store', async () => {
    const deviceId = await sensorA();
    const at = context.cloud.clock.now().toISOString();
    const incident = await raise(context.managerA, incidentBody(deviceId, context.a.location.id));
    expect(incident).toEqual({
      id: expect.any(String),
      tenant_id: context.a.tenant.id,
      type: 'temperature_alert',
      title: 'Temperature alert: sensor at Store 1',
      severity: 'high',
      status: 'open',
      service: null,
      description: 'Walk-in fridge reads 9 °C, above its maximum of 5 °C',
      runbook_url: null,
      device_id: deviceId,
      location_id: context.a.location.id,
      source: 'api',
      source_event_id: null,
      occurrences: 1,
      last_occurred_at: at,
      created_at: at,
      updated_at: at,
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
      resolved_by: null,
    });
    expect(expectOk(await context.managerA.call('GET', `/v1/incidents/${incident.id}`))).toEqual(incident);
    const audit = await context.cloud.services.audit.list(context.a.tenant.id, {
      limit: 5,
      action: 'incident.create',
    });
    expect(audit[0]).toMatchObject({ outcome: 'success', details: { incident_id: incident.id } });
  });

  it('defaults the severity to high, and folds a repeat for the device into the open incident (200)', async () => {
    const deviceId = await sensorA();
    const body = incidentBody(deviceId, context.a.location.id, { severity: undefined });
    const first = await raise(context.adminA, body);
    expect(first.severity).toBe('high');
    context.cloud.clock.advance(60_000);
    const again = await raise(context.adminA, { ...body, severity: 'critical' }, 200);
    expect(again).toMatchObject({
      id: first.id,
      occurrences: 2,
      last_occurred_at: context.cloud.clock.now().toISOString(),
      created_at: first.created_at,
    });
    // Another type for the same device is another incident.
    const other = await raise(context.adminA, { ...body, type: 'door_open' });
    expect(other.id).not.toBe(first.id);
    expect(other.title).toBe('Door open: sensor at Store 1');
  });

  it('answers 400 INVALID_REQUEST with field details to bad input', async () => {
    const post = (payload: unknown) => context.adminA.call('POST', '/v1/incidents', payload);
    const bad = expectError(
      await post({ type: 'Temperature Alert!', device_id: 'x', severity: 'P1', description: '', extra: 1 }),
      400,
      'INVALID_REQUEST',
    );
    expect(bad.details.map((detail) => detail.field).sort()).toEqual(
      [
        'body.description',
        'body.device_id',
        'body.extra',
        'body.location_id',
        'body.severity',
        'body.type',
      ].sort(),
    );
    const deviceId = await sensorA();
    const unknownLocation = expectError(
      await post(incidentBody(deviceId, '01900000-0000-7000-8000-000000000000')),
      400,
      'INVALID_REQUEST',
    );
    expect(unknownLocation.details).toEqual([
      { field: 'body.location_id', message: 'does not exist in this tenant' },
    ]);
    const unknownDevice = expectError(
      await post(incidentBody('01900000-0000-7000-8000-000000000000', context.a.location.id)),
      400,
      'INVALID_REQUEST',
    );
    expect(unknownDevice.details).toEqual([
      { field: 'body.device_id', message: 'is not a registered device of this tenant' },
    ]);

    const store2 = await context.cloud.services.tenancy.createLocation(context.a.tenant.id, {
      name: 'Store 2',
      brand_id: context.a.brand.id,
      region_id: context.a.region.id,
    });
    const elsewhere = expectError(await post(incidentBody(deviceId, store2.id)), 400, 'INVALID_REQUEST');
    expect(elsewhere.details).toEqual([
      { field: 'body.device_id', message: 'is not at the location given in body.location_id' },
    ]);

    const list = (query: string) => context.adminA.call('GET', `/v1/incidents?${query}`);
    for (const [query, field] of [
      ['status=firing', 'querystring.status'],
      ['limit=0', 'querystring.limit'],
      ['limit=201', 'querystring.limit'],
      ['cursor=abc', 'querystring.cursor'],
      ['location_id=store-1', 'querystring.location_id'],
      ['colour=red', 'querystring.colour'],
    ]) {
      expect(expectError(await list(query!), 400, 'INVALID_REQUEST').details[0]?.field, query).toBe(field);
    }
    for (const path of [
      '/v1/incidents/nope',
      '/v1/incidents/nope/acknowledge',
      '/v1/incidents/nope/resolve',
    ]) {
      const method = path.endsWith('nope') ? 'GET' : 'POST';
      expectError(await context.adminA.call(method, path), 400, 'INVALID_REQUEST');
    }
    const missing = '01900000-0000-7000-8000-000000000000';
    expectError(await context.adminA.call('GET', `/v1/incidents/${missing}`), 404, 'INCIDENT_NOT_FOUND');
    expectError(
      await context.adminA.call('POST', `/v1/incidents/${missing}/resolve`),
      404,
      'INCIDENT_NOT_FOUND',
    );
  });

  it('admits managers and administrators only', async () => {
    const deviceId = await sensorA();
    const body = incidentBody(deviceId, context.a.location.id);
    expectError(await context.anonymous('GET', '/v1/incidents'), 401, 'MISSING_TOKEN');
    expectError(await context.anonymous('POST', '/v1/incidents', body), 401, 'MISSING_TOKEN');
    expectError(await context.staffA.call('GET', '/v1/incidents'), 403, 'FORBIDDEN');
    expectError(await context.staffA.call('POST', '/v1/incidents', body), 403, 'FORBIDDEN');
    const incident = await raise(context.managerA, body);
    expectError(
      await context.staffA.call('POST', `/v1/incidents/${incident.id}/acknowledge`),
      403,
      'FORBIDDEN',
    );
    expectError(await context.staffA.call('GET', `/v1/incidents/${incident.id}`), 403, 'FORBIDDEN');
  });

  it('moves open → acknowledged → resolved, refusing what does not follow with 409', async () => {
    const deviceId = await sensorA();
    const incident = await raise(context.adminA, incidentBody(deviceId, context.a.location.id));
    const call = (action: string) => context.managerA.call('POST', `/v1/incidents/${incident.id}/${action}`);
    context.cloud.clock.advance(1000);
    const acknowledged = expectOk(await call('acknowledge')) as Incident;
    const ackAt = context.cloud.clock.now().toISOString();
    expect(acknowledged).toMatchObject({ status: 'acknowledged', acknowledged_at: ackAt, updated_at: ackAt });
    expect(acknowledged.acknowledged_by).toEqual(expect.any(String));
    const twice = expectError(await call('acknowledge'), 409, 'INVALID_INCIDENT_TRANSITION');
    expect(twice.message).toContain('acknowledged');

    // An acknowledged incident still takes the device's repeat alerts.
    const repeat = await raise(context.adminA, incidentBody(deviceId, context.a.location.id), 200);
    expect(repeat).toMatchObject({ id: incident.id, status: 'acknowledged', occurrences: 2 });

    context.cloud.clock.advance(1000);
    const resolved = expectOk(await call('resolve')) as Incident;
    expect(resolved).toMatchObject({
      status: 'resolved',
      resolved_at: context.cloud.clock.now().toISOString(),
      resolved_by: acknowledged.acknowledged_by,
      acknowledged_at: ackAt,
    });
    expectError(await call('resolve'), 409, 'INVALID_INCIDENT_TRANSITION');
    expectError(await call('acknowledge'), 409, 'INVALID_INCIDENT_TRANSITION');

    // Resolved is final: the device's next alert opens a new incident.
    const next = await raise(context.adminA, incidentBody(deviceId, context.a.location.id));
    expect(next.id).not.toBe(incident.id);
    // An open incident may be resolved without an acknowledgement.
    const direct = expectOk(
      await context.adminA.call('POST', `/v1/incidents/${next.id}/resolve`),
    ) as Incident;
    expect(direct).toMatchObject({ status: 'resolved', acknowledged_at: null });

    const recorded = async (action: string) =>
      (await context.cloud.services.audit.list(context.a.tenant.id, { limit: 50, action })).filter(
        (entry) => entry.details.incident_id === incident.id,
      );
    expect((await recorded('incident.create')).map((entry) => entry.details.repeat)).toEqual([true, false]);
    expect(await recorded('incident.acknowledge')).toHaveLength(1);
    expect(await recorded('incident.resolve')).toEqual([
      expect.objectContaining({ user_id: resolved.resolved_by, outcome: 'success' }),
    ]);
  });

  it('lists a tenant’s incidents newest first, a page at a time, by status, type, location and device', async () => {
    const c = await seedTenant(context.cloud.services, `charlie-${backend}`);
    const admin = await member(context.cloud, c.tenant.id, `admin-${backend}@charlie.test`, ['tenant_admin']);
    const store2 = await context.cloud.services.tenancy.createLocation(c.tenant.id, {
      name: 'Store 2',
      brand_id: c.brand.id,
      region_id: c.region.id,
    });
    const fridges = [await registerSensor(admin, c.location.id), await registerSensor(admin, store2.id)];
    const opened: Incident[] = [];
    for (const [index, type] of ['temperature_alert', 'door_open', 'power_loss'].entries()) {
      for (const [at, deviceId] of fridges.entries()) {
        const location = at === 0 ? c.location.id : store2.id;
        context.cloud.clock.advance(index + 1);
        opened.push(await raise(admin, incidentBody(deviceId!, location, { type })));
      }
    }
    await admin.call('POST', `/v1/incidents/${opened[0]!.id}/acknowledge`);
    await admin.call('POST', `/v1/incidents/${opened[1]!.id}/resolve`);
    const newestFirst = opened.map((incident) => incident.id).reverse();

    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const response = await admin.call('GET', `/v1/incidents?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      pages.push(body.data.map((incident: Incident) => incident.id));
      expect(body.meta.pagination.limit).toBe(4);
      cursor = body.meta.pagination.next_cursor;
    } while (cursor);
    expect(pages).toEqual([newestFirst.slice(0, 4), newestFirst.slice(4)]);

    const ids = async (query: string) =>
      (expectOk(await admin.call('GET', `/v1/incidents?${query}`)) as Incident[]).map(
        (incident) => incident.id,
      );
    expect(await ids('status=acknowledged')).toEqual([opened[0]!.id]);
    expect(await ids('status=resolved')).toEqual([opened[1]!.id]);
    expect(await ids('status=open')).toEqual(newestFirst.slice(0, 4));
    expect(await ids('type=door_open')).toEqual([opened[3]!.id, opened[2]!.id]);
    expect(await ids(`location_id=${store2.id}`)).toEqual([opened[5]!.id, opened[3]!.id, opened[1]!.id]);
    expect(await ids(`device_id=${fridges[0]}&type=power_loss`)).toEqual([opened[4]!.id]);
    expect(await ids(`device_id=${fridges[0]}&status=resolved`)).toEqual([]);
  });

  it('describes every incident route in the OpenAPI document', async () => {
    const response = await context.anonymous('GET', '/openapi.json');
    expect(response.statusCode).toBe(200);
    const paths = response.json().paths as Record<
      string,
      Record<string, { summary?: string; tags?: string[] }>
    >;
    const routes: Array<[string, string]> = [
      ['/v1/incidents', 'post'],
      ['/v1/incidents', 'get'],
      ['/v1/incidents/{incident_id}', 'get'],
      ['/v1/incidents/{incident_id}/acknowledge', 'post'],
      ['/v1/incidents/{incident_id}/resolve', 'post'],
    ];
    for (const [path, method] of routes) {
      expect(paths[path]?.[method], `${method} ${path}`).toMatchObject({
        summary: expect.any(String),
        tags: ['incidents'],
      });
    }
  });
});
