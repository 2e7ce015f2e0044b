import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type ApiCloud,
  apiCloud,
  expectError,
  expectOk,
  type IncidentRecord,
  newIncident,
  type TimelineEntry,
} from './api-cloud.ts';

const MISSING = '01900000-0000-7000-8000-000000000000';

describe.each(backends)('/api/v1/incidents on %s', (backend) => {
  let context: ApiCloud;
  beforeAll(async () => {
    context = await apiCloud(backend);
  });
  afterAll(() => context.cloud.close());

  const open = async (overrides: Record<string, unknown> = {}) =>
    expectOk(
      await context.managerA.call('POST', '/api/v1/incidents', newIncident(overrides)),
      201,
    ) as IncidentRecord;
  const timelineOf = async (id: string, query = '') =>
    expectOk(
      await context.managerA.call('GET', `/api/v1/incidents/${id}/timeline${query}`),
    ) as TimelineEntry[];

  it('opens an incident from the create request and shows the whole record', async () => {
    const at = context.cloud.clock.now().toISOString();
    const incident = await open({ runbook_url: 'https://runbooks.example/checkout-502' });
    expect(incident).toEqual({
      id: expect.any(String),
      tenant_id: context.a.tenant.id,
      type: null,
      title: 'Checkout API returns 502',
      severity: 'critical',
      status: 'open',
      service: 'checkout',
      description: 'Half the card payments fail at the gateway',
      runbook_url: 'https://runbooks.example/checkout-502',
      runbook_id: null,
      device_id: null,
      location_id: null,
      source: 'api',
      source_event_id: null,
      alert_id: null,
      channel_id: null,
      responders: [],
      occurrences: 1,
      started_at: at,
      last_occurred_at: at,
      last_activity_at: at,
      created_at: at,
      updated_at: at,
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
      resolved_by: null,
    });
    expect(expectOk(await context.adminA.call('GET', `/api/v1/incidents/${incident.id}`))).toEqual(incident);
    const timeline = await timelineOf(incident.id);
    expect(timeline.map((entry) => [entry.kind, entry.actor])).toEqual([
      ['opened', context.managerA.id],
      ['runbook_attached', context.managerA.id],
    ]);
    // The device form's view of the same incident keeps its own fields.
    const device = expectOk(await context.managerA.call('GET', `/v1/incidents/${incident.id}`));
    expect(device).not.toHaveProperty('channel_id');
    expect(device).toMatchObject({ id: incident.id, title: incident.title });
  });

  it('refuses bad input with 400 naming each field', async () => {
    const post = (payload: unknown) => context.managerA.call('POST', '/api/v1/incidents', payload);
    const bad = expectError(
      await post({ title: '', severity: 'P1', service: '', runbook_url: 'ftp://x', colour: 'red' }),
      400,
      'INVALID_REQUEST',
    );
    expect(bad.details.map((d) => d.field).sort()).toEqual(
      ['body.colour', 'body.runbook_url', 'body.service', 'body.severity', 'body.title'].sort(),
    );
    const missing = expectError(await post({ service: 'checkout' }), 400, 'INVALID_REQUEST');
    expect(missing.details.map((d) => d.field).sort()).toEqual(['body.severity', 'body.title']);
    for (const [query, field] of [
      ['status=firing', 'querystring.status'],
      ['severity=P1', 'querystring.severity'],
      ['limit=0', 'querystring.limit'],
      ['cursor=abc', 'querystring.cursor'],
      ['colour=red', 'querystring.colour'],
    ] as const) {
      const response = await context.managerA.call('GET', `/api/v1/incidents?${query}`);
      expect(expectError(response, 400, 'INVALID_REQUEST').details[0]?.field, query).toBe(field);
    }
    const incident = await open();
    const note = expectError(
      await context.managerA.call('POST', `/api/v1/incidents/${incident.id}/timeline`, { text: '' }),
      400,
      'INVALID_REQUEST',
    );
    expect(note.details[0]?.field).toBe('body.text');
    expectError(await context.managerA.call('GET', '/api/v1/incidents/nope'), 400, 'INVALID_REQUEST');
    expectError(
      await context.managerA.call('GET', `/api/v1/incidents/${MISSING}`),
      404,
      'INCIDENT_NOT_FOUND',
    );
    expectError(
      await context.managerA.call('GET', `/api/v1/incidents/${MISSING}/timeline`),
      404,
      'INCIDENT_NOT_FOUND',
    );
    expectError(
      await context.managerA.call('POST', `/api/v1/incidents/${MISSING}/timeline`, { text: 'hi' }),
      404,
      'INCIDENT_NOT_FOUND',
    );
  });

  it('admits managers and administrators only', async () => {
    expectError(await context.anonymous('GET', '/api/v1/incidents'), 401, 'MISSING_TOKEN');
    expectError(await context.staffA.call('GET', '/api/v1/incidents'), 403, 'FORBIDDEN');
    expectError(await context.staffA.call('POST', '/api/v1/incidents', newIncident()), 403, 'FORBIDDEN');
    expectError(await context.staffA.call('GET', '/api/v1/incidents/runbooks'), 403, 'FORBIDDEN');
  });

  it('lists newest first, a page at a time, filtered by status, severity and service', async () => {
    const fresh = await apiCloud(backend);
    try {
      const post = async (overrides: Record<string, unknown>) =>
        expectOk(
          await fresh.managerA.call('POST', '/api/v1/incidents', newIncident(overrides)),
          201,
        ) as IncidentRecord;
      const first = await post({ severity: 'low', service: 'menu' });
      const second = await post({ severity: 'critical', service: 'checkout' });
      const third = await post({ severity: 'critical', service: 'menu' });
      expectOk(await fresh.managerA.call('POST', `/api/v1/incidents/${third.id}/resolve`, { note: 'fixed' }));
      const list = async (query: string) => {
        const response = await fresh.managerA.call('GET', `/api/v1/incidents?${query}`);
        expect(response.statusCode, response.body).toBe(200);
        const body = response.json();
        return {
          ids: (body.data as IncidentRecord[]).map((i) => i.id),
          next: body.meta.pagination.next_cursor as string | null,
        };
      };
      expect((await list('')).ids).toEqual([third.id, second.id, first.id]);
      const page1 = await list('limit=2');
      expect(page1.ids).toEqual([third.id, second.id]);
      expect(page1.next).toBe(second.id);
      const page2 = await list(`limit=2&cursor=${page1.next}`);
      expect(page2).toEqual({ ids: [first.id], next: null });
      expect((await list('severity=critical')).ids).toEqual([third.id, second.id]);
      expect((await list('service=menu')).ids).toEqual([third.id, first.id]);
      expect((await list('status=resolved')).ids).toEqual([third.id]);
      expect((await list('status=open&severity=critical')).ids).toEqual([second.id]);
    } finally {
      await fresh.cloud.close();
    }
  });

  it('keeps a timeline of notes and transitions, oldest first, a page at a time', async () => {
    const incident = await open();
    const path = `/api/v1/incidents/${incident.id}`;
    context.cloud.clock.advance(60_000);
    const note = expectOk(
      await context.adminA.call('POST', `${path}/timeline`, { text: 'Gateway vendor paged' }),
      201,
    ) as TimelineEntry;
    expect(note).toMatchObject({
      kind: 'note',
      actor: context.adminA.id,
      text: 'Gateway vendor paged',
      data: null,
    });
    context.cloud.clock.advance(60_000);
    const acknowledged = expectOk(
      await context.managerA.call('POST', `${path}/acknowledge`, { note: 'on it' }),
    ) as IncidentRecord;
    expect(acknowledged).toMatchObject({ status: 'acknowledged', acknowledged_by: context.managerA.id });
    expectError(
      await context.managerA.call('POST', `${path}/acknowledge`),
      409,
      'INVALID_INCIDENT_TRANSITION',
    );
    context.cloud.clock.advance(60_000);
    const resolved = expectOk(await context.managerA.call('POST', `${path}/resolve`)) as IncidentRecord;
    expect(resolved).toMatchObject({
      status: 'resolved',
      resolved_by: context.managerA.id,
      last_activity_at: context.cloud.clock.now().toISOString(),
    });
    const entries = await timelineOf(incident.id);
    expect(entries.map((e) => [e.kind, e.text])).toEqual([
      ['opened', 'Opened: Checkout API returns 502'],
      ['note', 'Gateway vendor paged'],
      ['acknowledged', 'Acknowledged: on it'],
      ['resolved', 'Resolved'],
    ]);
    const response = await context.managerA.call('GET', `${path}/timeline?limit=3`);
    expect(response.json().meta.pagination.next_cursor).toBe(entries[2]!.id);
    expect((await timelineOf(incident.id, `?limit=3&cursor=${entries[2]!.id}`)).map((e) => e.kind)).toEqual([
      'resolved',
    ]);
    // The device form's transitions are the same service's: they reach the timeline too.
    const other = await open();
    expectOk(await context.managerA.call('POST', `/v1/incidents/${other.id}/acknowledge`));
    expect((await timelineOf(other.id)).map((e) => e.kind)).toEqual(['opened', 'acknowledged']);
  });

  it('answers 404 to another tenant for every incident call and changes nothing', async () => {
    const incident = await open();
    const path = `/api/v1/incidents/${incident.id}`;
    const before = expectOk(await context.managerA.call('GET', path));
    const timelineBefore = await timelineOf(incident.id);
    const b = context.adminB.call;
    expectError(await b('GET', path), 404, 'INCIDENT_NOT_FOUND');
    expectError(await b('GET', `${path}/timeline`), 404, 'INCIDENT_NOT_FOUND');
    expectError(await b('POST', `${path}/timeline`, { text: 'sneaky' }), 404, 'INCIDENT_NOT_FOUND');
    expectError(await b('POST', `${path}/acknowledge`), 404, 'INCIDENT_NOT_FOUND');
    expectError(await b('POST', `${path}/resolve`), 404, 'INCIDENT_NOT_FOUND');
    expectError(await b('GET', `/v1/incidents/${incident.id}`), 404, 'INCIDENT_NOT_FOUND');
    for (const query of ['', '?service=checkout', '?severity=critical', '?status=open'])
      expect(expectOk(await b('GET', `/api/v1/incidents${query}`)), query).toEqual([]);
    expect(expectOk(await context.managerA.call('GET', path))).toEqual(before);
    expect(await timelineOf(incident.id)).toEqual(timelineBefore);
  });

  it('describes every /api/v1/incidents route in the OpenAPI document', async () => {
    const response = await context.anonymous('GET', '/openapi.json');
    expect(response.statusCode).toBe(200);
    const paths = response.json().paths as Record<
      string,
      Record<string, { summary?: string; tags?: string[] }>
    >;
    const routes: Array<[string, string]> = [
      ['/api/v1/incidents', 'post'],
      ['/api/v1/incidents', 'get'],
      ['/api/v1/incidents/{incident_id}', 'get'],
      ['/api/v1/incidents/{incident_id}/timeline', 'get'],
      ['/api/v1/incidents/{incident_id}/timeline', 'post'],
      ['/api/v1/incidents/{incident_id}/acknowledge', 'post'],
      ['/api/v1/incidents/{incident_id}/resolve', 'post'],
      ['/api/v1/incidents/runbooks', 'post'],
      ['/api/v1/incidents/runbooks', 'get'],
      ['/api/v1/incidents/runbooks/{runbook_id}', 'get'],
      ['/api/v1/incidents/runbooks/{runbook_id}', 'put'],
      ['/api/v1/incidents/runbooks/{runbook_id}', 'delete'],
    ];
    for (const [path, method] of routes) {
      expect(paths[path]?.[method], `${method} ${path}`).toMatchObject({
        summary: expect.any(String),
        tags: ['incidents'],
      });
    }
  });
});
