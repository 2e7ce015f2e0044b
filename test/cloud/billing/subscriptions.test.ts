import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  addonBody,
  type BillingCloud,
  billingCloud,
  createSubscription,
  fails,
  OTHER_PLAN,
  ok,
  PLAN,
  subscriptionBody,
} from './billing-cloud.ts';

const UUID = '0190c0de-0000-7000-8000-00000000abcd';

describe.each(backends)('subscriptions and add-ons on %s', (backend) => {
  let c: BillingCloud;
  beforeAll(async () => {
    c = await billingCloud(backend);
  });
  afterAll(() => c.cloud.close());

  it('records, reads and changes a subscription', async () => {
    const at = c.cloud.clock.now().toISOString();
    const body = subscriptionBody({ current_period_end: '2030-01-31T02:00:00+02:00' });
    const sub = ok(await c.adminA('POST', '/v1/billing/subscriptions', body), 201);
    expect(sub).toEqual({
      id: expect.any(String),
      tenant_id: c.a.tenant.id,
      plan_id: PLAN,
      processor_subscription_id: body.processor_subscription_id,
      status: 'active',
      current_period_end: '2030-01-31T00:00:00.000Z',
      cancel_at_period_end: false,
      discount_id: null,
      discount_applied_at: null,
      created_at: at,
      updated_at: at,
    });
    expect(ok(await c.adminA('GET', `/v1/billing/subscriptions/${sub.id}`))).toEqual(sub);
    c.cloud.clock.advance(1000);
    const changed = ok(
      await c.adminA('PATCH', `/v1/billing/subscriptions/${sub.id}`, {
        status: 'canceled',
        plan_id: OTHER_PLAN,
        cancel_at_period_end: true,
        current_period_end: '2030-02-28T00:00:00Z',
      }),
    );
    expect(changed).toMatchObject({
      status: 'canceled',
      plan_id: OTHER_PLAN,
      cancel_at_period_end: true,
      current_period_end: '2030-02-28T00:00:00.000Z',
      created_at: at,
      updated_at: c.cloud.clock.now().toISOString(),
    });
    const unchanged = ok(await c.adminA('PATCH', `/v1/billing/subscriptions/${sub.id}`, {}));
    expect(unchanged).toMatchObject({ status: 'canceled', plan_id: OTHER_PLAN });
  });

  it('answers 404 not_found for unknown subscriptions', async () => {
    fails(await c.adminA('GET', `/v1/billing/subscriptions/${UUID}`), 404, 'not_found');
    fails(
      await c.adminA('PATCH', `/v1/billing/subscriptions/${UUID}`, { status: 'active' }),
      404,
      'not_found',
    );
    fails(await c.adminA('POST', `/v1/billing/subscriptions/${UUID}/pause`), 404, 'not_found');
    fails(await c.adminA('GET', `/v1/billing/nothing-here`), 404, 'not_found');
  });

  it('pauses and resumes through the in-process platform, recording both events', async () => {
    const sub = await createSubscription(c.adminA);
    const paused = ok(await c.adminA('POST', `/v1/billing/subscriptions/${sub.id}/pause`));
    expect(paused.status).toBe('paused');
    fails(await c.adminA('POST', `/v1/billing/subscriptions/${sub.id}/pause`), 409, 'invalid_state');
    const resumed = ok(await c.adminA('POST', `/v1/billing/subscriptions/${sub.id}/resume`));
    expect(resumed.status).toBe('active');
    fails(await c.adminA('POST', `/v1/billing/subscriptions/${sub.id}/resume`), 409, 'invalid_state');
    const events = ok(await c.adminA('GET', `/v1/billing/events?subscription_id=${sub.id}`)).items;
    expect(events.map((event: { event_type: string }) => event.event_type).sort()).toEqual([
      'paused',
      'resumed',
    ]);
    expect(events[0]).toMatchObject({ subscription_id: sub.id, currency: 'USD', from_mrr_cents: null });
  });

  it('the in-process platform refuses a suspended tenant: 502 and nothing changes', async () => {
    const sub = await createSubscription(c.adminA);
    await c.cloud.services.tenancy.updateTenant(c.a.tenant.id, { status: 'suspended' });
    try {
      fails(await c.adminA('POST', `/v1/billing/subscriptions/${sub.id}/pause`), 502, 'upstream_error');
    } finally {
      await c.cloud.services.tenancy.updateTenant(c.a.tenant.id, { status: 'active' });
    }
    expect(ok(await c.adminA('GET', `/v1/billing/subscriptions/${sub.id}`)).status).toBe('active');
    expect(ok(await c.adminA('GET', `/v1/billing/events?subscription_id=${sub.id}`)).items).toEqual([]);
  });

  it('add-ons: create, list with active_only, read, change, soft delete', async () => {
    const at = c.cloud.clock.now().toISOString();
    const addon = ok(
      await c.adminA(
        'POST',
        '/v1/billing/addons',
        addonBody({ description: 'One more screen', metadata_json: '{"a":1}' }),
      ),
      201,
    );
    expect(addon).toEqual({
      id: expect.any(String),
      tenant_id: c.a.tenant.id,
      name: 'Extra kiosk',
      description: 'One more screen',
      addon_type: 'per_location',
      price_cents: 1500,
      currency: 'USD',
      processor_price_id: null,
      metadata_json: '{"a":1}',
      is_active: true,
      created_at: at,
      updated_at: at,
    });
    const other = ok(await c.adminA('POST', '/v1/billing/addons', addonBody({ name: 'Other' })), 201);
    const changed = ok(
      await c.adminA('PATCH', `/v1/billing/addons/${addon.id}`, {
        price_cents: 0,
        processor_price_id: 'price_9',
      }),
    );
    expect(changed).toMatchObject({ price_cents: 0, processor_price_id: 'price_9', name: 'Extra kiosk' });
    const deleted = await c.adminA('DELETE', `/v1/billing/addons/${other.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect(ok(await c.adminA('GET', `/v1/billing/addons/${other.id}`)).is_active).toBe(false);
    const all = ok(await c.adminA('GET', '/v1/billing/addons')).items.map((a: { id: string }) => a.id);
    const active = ok(await c.adminA('GET', '/v1/billing/addons?active_only=true')).items.map(
      (a: { id: string }) => a.id,
    );
    expect(all).toEqual(expect.arrayContaining([addon.id, other.id]));
    expect(active).toContain(addon.id);
    expect(active).not.toContain(other.id);
    expect(ok(await c.adminA('PATCH', `/v1/billing/addons/${other.id}`, { is_active: true })).is_active).toBe(
      true,
    );
    fails(await c.adminA('GET', `/v1/billing/addons/${UUID}`), 404, 'not_found');
    fails(await c.adminA('DELETE', `/v1/billing/addons/${UUID}`), 404, 'not_found');
    fails(await c.adminA('PATCH', `/v1/billing/addons/${UUID}`, { name: 'x' }), 404, 'not_found');
  });

  it('subscription add-ons: add (201), set quantity again (200), list, remove (204)', async () => {
    const sub = await createSubscription(c.adminA);
    const addon = ok(await c.adminA('POST', '/v1/billing/addons', addonBody()), 201);
    const path = `/v1/billing/subscriptions/${sub.id}/addons`;
    const added = ok(await c.adminA('POST', path, { addon_id: addon.id, quantity: 2 }), 201);
    expect(added).toMatchObject({
      subscription_id: sub.id,
      addon_id: addon.id,
      quantity: 2,
      addon: { name: 'Extra kiosk', price_cents: 1500, currency: 'USD', is_active: true },
    });
    const again = ok(await c.adminA('POST', path, { addon_id: addon.id, quantity: 5 }), 200);
    expect(again).toMatchObject({ id: added.id, quantity: 5 });
    expect(ok(await c.adminA('GET', path)).items).toEqual([{ ...again, updated_at: expect.any(String) }]);
    expect((await c.adminA('DELETE', `${path}/${addon.id}`)).statusCode).toBe(204);
    expect(ok(await c.adminA('GET', path)).items).toEqual([]);
    fails(await c.adminA('DELETE', `${path}/${addon.id}`), 404, 'not_found');
    fails(await c.adminA('POST', path, { addon_id: UUID, quantity: 1 }), 404, 'not_found');
    await c.adminA('DELETE', `/v1/billing/addons/${addon.id}`);
    fails(await c.adminA('POST', path, { addon_id: addon.id, quantity: 1 }), 409, 'addon_inactive');
    fails(await c.adminA('GET', `/v1/billing/subscriptions/${UUID}/addons`), 404, 'not_found');
  });
});
