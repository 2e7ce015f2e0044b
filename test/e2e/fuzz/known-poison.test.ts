import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestCloud, seedTenant, signedInUser, type TestCloud } from '../../support/cloud.ts';
import { cloudRowCounter } from '../../support/fuzz.ts';
import { backends } from '../../support/stores.ts';

/**
 * The requests a black-box run found poisoning a tenant's data for good: each answered 500 yet
 * stored a non-finite number, and every later read of that data answered 500 (even the AI agents'
 * kill switch could no longer be turned on). Each is now refused with a 400 before any write, and
 * the data stays readable. The audit trail is left out of the counts: it records changes that
 * succeeded, as their answers go out.
 */
const HOSTILE_INTEGERS = ['"Infinity"', '1e400', '-1e400', '"NaN"', '"1500"'];
const DEEP = `${'['.repeat(5000)}${']'.repeat(5000)}`;

describe.each(backends)('hostile values that once poisoned data (%s)', (backend) => {
  let cloud: TestCloud;
  let admin = '';
  let operator = '';
  let counts: () => Promise<Record<string, number>>;

  beforeAll(async () => {
    cloud = await createTestCloud(backend, { config: { rateLimit: false } });
    const { tenant } = await seedTenant(cloud.services, 'poison');
    admin = (
      await signedInUser(cloud, tenant.id, 'admin@poison.test', ['tenant_admin', 'platform_admin', 'finance'])
    ).token;
    operator = (await signedInUser(cloud, tenant.id, 'operator@poison.test', ['cockpit_operator'])).token;
    counts = await cloudRowCounter(cloud.store, new Set(['audit_events']));
  });
  afterAll(() => cloud.close());

  const send = (method: string, url: string, body?: string, token = admin) =>
    cloud.app.inject({
      method: method as 'POST',
      url,
      headers: { ...bearer(token), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: body } : {}),
    });
  const ok = (response: LightMyRequestResponse, status = 200) => {
    expect(response.statusCode, response.body).toBe(status);
    return response.json();
  };

  /** `template` holds `$` where the hostile JSON goes; each variant is a 400 that writes nothing. */
  async function refusedWithoutWrites(method: string, url: string, template: string, token = admin) {
    for (const hostile of HOSTILE_INTEGERS) {
      const before = await counts();
      const response = await send(method, url, template.replace('$', hostile), token);
      expect(response.statusCode, `${hostile}: ${response.body}`).toBe(400);
      expect(await counts()).toEqual(before);
    }
  }

  it('add-on prices', async () => {
    const addon = `{"name":"Kiosk","addon_type":"recurring","currency":"USD","price_cents":$}`;
    const created = ok(await send('POST', '/v1/billing/addons', addon.replace('$', '1500')), 201);
    await refusedWithoutWrites('POST', '/v1/billing/addons', addon);
    await refusedWithoutWrites('PATCH', `/v1/billing/addons/${created.id}`, '{"price_cents":$}');
    ok(await send('GET', '/v1/billing/addons'));
  });

  it('discount redemption limits', async () => {
    const discount = (code: string) =>
      `{"code":"${code}","name":"Spring","discount_type":"percentage","discount_value":10,"duration":"once","valid_from":"2026-01-01T00:00:00Z","max_redemptions":$}`;
    const created = ok(
      await send('POST', '/v1/billing/discounts', discount('SPRING').replace('$', '5')),
      201,
    );
    await refusedWithoutWrites('POST', '/v1/billing/discounts', discount('SUMMER'));
    await refusedWithoutWrites('PATCH', `/v1/billing/discounts/${created.id}`, '{"max_redemptions":$}');
    ok(await send('GET', '/v1/billing/discounts'));
  });

  it('subscription events, recorded invoices and a subscription’s add-ons', async () => {
    const subscription = ok(
      await send(
        'POST',
        '/v1/billing/subscriptions',
        '{"plan_id":"0190c0de-0000-7000-8000-000000000001","processor_subscription_id":"sub_poison","current_period_end":"2030-01-31T00:00:00Z","status":"active"}',
      ),
      201,
    );
    const event = `{"subscription_id":"${subscription.id}","event_type":"upgraded","currency":"USD","event_at":"2026-06-01T00:00:00Z","from_mrr_cents":$,"to_mrr_cents":2000}`;
    ok(await send('POST', '/v1/billing/events', event.replace('$', '1000')), 201);
    await refusedWithoutWrites('POST', '/v1/billing/events', event);
    await refusedWithoutWrites('POST', '/v1/billing/events', event.replace('$', '1000').replace('2000', '$'));
    const invoice = `{"processor_invoice_id":"in_poison","subscription_id":"${subscription.id}","currency":"USD","status":"open","amount_due":$}`;
    await refusedWithoutWrites('POST', '/v1/billing/invoices/record', invoice);
    ok(await send('POST', '/v1/billing/invoices/record', invoice.replace('$', '1000')), 201);
    const addon = ok(
      await send(
        'POST',
        '/v1/billing/addons',
        '{"name":"Screen","addon_type":"recurring","currency":"USD","price_cents":500}',
      ),
      201,
    );
    await refusedWithoutWrites(
      'POST',
      `/v1/billing/subscriptions/${subscription.id}/addons`,
      `{"addon_id":"${addon.id}","quantity":$}`,
    );
    ok(await send('GET', `/v1/billing/subscriptions/${subscription.id}`));
    ok(await send('GET', `/v1/billing/subscriptions/${subscription.id}/addons`));
    ok(await send('GET', '/v1/billing/metrics/mrr?start=2026-01-01T00:00:00Z&end=2026-12-31T00:00:00Z'));
  });

  it('the AI agents’ settings, after which the kill switch still turns on', async () => {
    const url = '/api/internal/cockpit/agents/settings';
    await refusedWithoutWrites('PUT', url, '{"timeout_seconds":$}', operator);
    const settings = ok(await send('PUT', url, '{"kill_switch":true}', operator));
    expect(settings.data.kill_switch).toBe(true);
    expect(ok(await send('GET', url, undefined, operator)).data.kill_switch).toBe(true);
  });

  it('a body nested 5,000 levels deep, and list limits past any number', async () => {
    const webhook = ok(
      await send(
        'POST',
        '/api/v1/webhooks',
        '{"url":"https://example.test/hook","events":["order.created"]}',
      ),
      201,
    );
    for (const [method, url, token] of [
      ['PUT', `/api/v1/webhooks/${webhook.id}`, admin],
      ['POST', '/api/internal/cockpit/approvals/0190c0de-0000-7000-8000-0000000000aa/modify', operator],
    ] as const) {
      const before = await counts();
      const response = await send(method, url, `{"metadata":${DEEP}}`, token);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error.message).toContain('nested deeper');
      expect(await counts()).toEqual(before);
    }
    for (const limit of ['1e400', '99999999999999999999999', 'Infinity']) {
      for (const url of ['/v1/platform/locations', '/v1/platform/audit-events', '/v1/mdm/devices']) {
        const response = await send('GET', `${url}?limit=${limit}`);
        expect(response.statusCode, `${url}?limit=${limit}`).toBe(400);
        expect(response.json().error.details[0].field).toBe('querystring.limit');
      }
    }
  });

  it('a wage rate for a staff id that is not a UUID', async () => {
    const before = await counts();
    const response = await send(
      'POST',
      '/api/v1/pnl/ledger/wage-rates',
      `{"staff_id":"' OR '1'='1","hourly_rate":15,"effective_from":"2026-01-01"}`,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toContain('staff_id');
    expect(await counts()).toEqual(before);
  });
});
