import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bestRunbook } from '../../../cloud/incidents/index.ts';
import type { RunbookRow } from '../../../cloud/incidents/tables.ts';
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

let seq = 0;
const row = (overrides: Partial<RunbookRow>): RunbookRow => ({
  id: `rb-${String(++seq).padStart(4, '0')}`,
  tenant_id: 't',
  name: `runbook ${seq}`,
  url: `https://runbooks.example/${seq}`,
  match_service: null,
  match_type: null,
  match_labels: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

describe('the runbook rule', () => {
  const fallback = row({});
  const checkout = row({ match_service: 'checkout' });
  const checkoutProd = row({ match_service: 'checkout', match_labels: JSON.stringify({ env: 'prod' }) });
  const fridge = row({ match_type: 'temperature_alert' });
  const fridgeWalkIn = row({
    match_type: 'temperature_alert',
    match_labels: JSON.stringify({ unit: 'walk-in' }),
  });
  const catalog = [fallback, checkout, checkoutProd, fridge, fridgeWalkIn];
  const subject = (service: string | null, type: string | null, labels: Record<string, string> = {}) => ({
    service,
    type,
    labels,
  });

  it('picks the entry whose criteria all hold and that sets the most of them', () => {
    expect(bestRunbook(catalog, subject('checkout', null, { env: 'prod' }))).toBe(checkoutProd);
    expect(bestRunbook(catalog, subject('checkout', null, { env: 'staging' }))).toBe(checkout);
    expect(bestRunbook(catalog, subject(null, 'temperature_alert', { unit: 'walk-in' }))).toBe(fridgeWalkIn);
    expect(bestRunbook(catalog, subject('fridge-monitor', 'temperature_alert'))).toBe(fridge);
  });

  it('falls back to an entry without criteria, and to nothing without one', () => {
    expect(bestRunbook(catalog, subject('menu', null))).toBe(fallback);
    expect(bestRunbook(catalog.slice(1), subject('menu', null))).toBeUndefined();
    expect(bestRunbook([], subject('checkout', null))).toBeUndefined();
  });

  it('breaks a tie in favour of the oldest entry', () => {
    const older = row({ match_service: 'pos' });
    const newer = row({ match_service: 'pos' });
    expect(bestRunbook([older, newer], subject('pos', null))).toBe(older);
  });

  it('never applies an entry with a label the alert lacks or carries with another value', () => {
    const strict = row({ match_labels: JSON.stringify({ env: 'prod', region: 'eu' }) });
    expect(bestRunbook([strict], subject(null, null, { env: 'prod' }))).toBeUndefined();
    expect(bestRunbook([strict], subject(null, null, { env: 'prod', region: 'us' }))).toBeUndefined();
    expect(bestRunbook([strict], subject(null, null, { env: 'prod', region: 'eu', x: 'y' }))).toBe(strict);
  });
});

describe.each(backends)('/api/v1/incidents/runbooks on %s', (backend) => {
  let context: ApiCloud;
  beforeAll(async () => {
    context = await apiCloud(backend);
  });
  afterAll(() => context.cloud.close());

  const base = '/api/v1/incidents/runbooks';
  const add = async (body: Record<string, unknown>, caller = context.managerA) =>
    expectOk(await caller.call('POST', base, body), 201) as { id: string; [field: string]: unknown };

  it('keeps a catalog: add, read, list a page at a time, replace and remove', async () => {
    const at = context.cloud.clock.now().toISOString();
    const created = await add({
      name: 'Checkout 5xx',
      url: 'https://runbooks.example/checkout-5xx',
      match: { service: 'checkout', labels: { env: 'prod' } },
    });
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Checkout 5xx',
      url: 'https://runbooks.example/checkout-5xx',
      match: { service: 'checkout', type: null, labels: { env: 'prod' } },
      created_at: at,
      updated_at: at,
    });
    expect(expectOk(await context.adminA.call('GET', `${base}/${created.id}`))).toEqual(created);
    const second = await add({ name: 'Default', url: 'https://runbooks.example/default' });
    const page = await context.managerA.call('GET', `${base}?limit=1`);
    expect(page.json().data.map((r: { id: string }) => r.id)).toEqual([created.id]);
    expect(page.json().meta.pagination.next_cursor).toBe(created.id);
    const rest = expectOk(await context.managerA.call('GET', `${base}?limit=1&cursor=${created.id}`));
    expect(rest.map((r: { id: string }) => r.id)).toEqual([second.id]);

    context.cloud.clock.advance(1000);
    const replaced = expectOk(
      await context.managerA.call('PUT', `${base}/${created.id}`, {
        name: 'Checkout 5xx (v2)',
        url: 'https://runbooks.example/checkout-5xx-v2',
        match: { type: 'gateway_error' },
      }),
    );
    expect(replaced).toEqual({
      ...created,
      name: 'Checkout 5xx (v2)',
      url: 'https://runbooks.example/checkout-5xx-v2',
      match: { service: null, type: 'gateway_error', labels: {} },
      updated_at: context.cloud.clock.now().toISOString(),
    });
    const removed = await context.managerA.call('DELETE', `${base}/${second.id}`);
    expect(removed.statusCode).toBe(204);
    expectError(await context.managerA.call('GET', `${base}/${second.id}`), 404, 'RUNBOOK_NOT_FOUND');
    expectError(await context.managerA.call('DELETE', `${base}/${second.id}`), 404, 'RUNBOOK_NOT_FOUND');
    await context.managerA.call('DELETE', `${base}/${created.id}`);
  });

  it('refuses bad entries with 400 naming the field', async () => {
    const bad = expectError(
      await context.managerA.call('POST', base, {
        name: '',
        url: 'javascript:alert(1)',
        match: { service: '', colour: 'red', labels: { 'bad key!': 'x' } },
      }),
      400,
      'INVALID_REQUEST',
    );
    const fields = bad.details.map((d) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['body.name', 'body.url']));
    expect(fields.some((f) => f.startsWith('body.match'))).toBe(true);
    const missing = expectError(await context.managerA.call('POST', base, {}), 400, 'INVALID_REQUEST');
    expect(missing.details.map((d) => d.field).sort()).toEqual(['body.name', 'body.url']);
    expectError(await context.managerA.call('GET', `${base}/nope`), 400, 'INVALID_REQUEST');
  });

  it('attaches the best catalog runbook to a new incident unless the request brings its own', async () => {
    const general = await add({ name: 'General', url: 'https://runbooks.example/general' });
    const checkout = await add({
      name: 'Checkout',
      url: 'https://runbooks.example/checkout',
      match: { service: 'checkout' },
    });
    const post = async (overrides: Record<string, unknown>) =>
      expectOk(
        await context.managerA.call('POST', '/api/v1/incidents', newIncident(overrides)),
        201,
      ) as IncidentRecord;
    const matched = await post({ service: 'checkout' });
    expect(matched).toMatchObject({
      runbook_url: 'https://runbooks.example/checkout',
      runbook_id: checkout.id,
    });
    const timeline = expectOk(
      await context.managerA.call('GET', `/api/v1/incidents/${matched.id}/timeline`),
    ) as TimelineEntry[];
    expect(timeline[1]).toMatchObject({
      kind: 'runbook_attached',
      text: 'Runbook attached: Checkout',
      data: { url: 'https://runbooks.example/checkout', runbook_id: checkout.id },
    });
    expect(await post({ service: 'menu' })).toMatchObject({ runbook_id: general.id });
    expect(await post({ service: 'checkout', runbook_url: 'https://wiki.example/own' })).toMatchObject({
      runbook_url: 'https://wiki.example/own',
      runbook_id: null,
    });
    await context.managerA.call('DELETE', `/api/v1/incidents/runbooks/${general.id}`);
    await context.managerA.call('DELETE', `/api/v1/incidents/runbooks/${checkout.id}`);
    expect(await post({ service: 'menu' })).toMatchObject({ runbook_url: null, runbook_id: null });
  });

  it('keeps each tenant’s catalog to itself', async () => {
    const mine = await add({ name: 'A only', url: 'https://runbooks.example/a', match: { service: 'pos' } });
    const path = `${base}/${mine.id}`;
    const b = context.adminB.call;
    expectError(await b('GET', path), 404, 'RUNBOOK_NOT_FOUND');
    expectError(await b('PUT', path, { name: 'B', url: 'https://b.example' }), 404, 'RUNBOOK_NOT_FOUND');
    expectError(await b('DELETE', path), 404, 'RUNBOOK_NOT_FOUND');
    expect(expectOk(await b('GET', base))).toEqual([]);
    // B's incident for the same service gets none of A's runbooks.
    const incident = expectOk(await b('POST', '/api/v1/incidents', newIncident({ service: 'pos' })), 201);
    expect(incident).toMatchObject({ runbook_url: null, runbook_id: null });
    expect(expectOk(await context.managerA.call('GET', path))).toEqual(mine);
  });
});
