import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import {
  EnvelopeASchema,
  EnvelopeBSchema,
  envelopeA,
  envelopeB,
  WEBHOOK_API_VERSION,
} from '../../../shared/webhooks/envelopes.ts';

// TypeBox checks only formats it has been taught; Fastify's validator knows date-time already.
FormatRegistry.Set('date-time', (value) => !Number.isNaN(Date.parse(value)));

const makeEvent = (overrides: Partial<Parameters<typeof envelopeA>[0]> = {}) => ({
  id: '01900000-0000-7000-8000-0000000000e1',
  type: 'order.created',
  createdAt: '2026-06-10T13:00:00.000Z',
  tenantId: 'acme',
  locationId: '01900000-0000-7000-8000-000000000001',
  data: { id: 'o1', number: '42' },
  ...overrides,
});

describe('webhook envelopes', () => {
  it('dates the API version as YYYY-MM-DD', () => {
    expect(WEBHOOK_API_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(new Date(WEBHOOK_API_VERSION).toISOString().slice(0, 10)).toBe(WEBHOOK_API_VERSION);
  });

  it('writes form A with the spec’s fields in the spec’s order', () => {
    const envelope = envelopeA(makeEvent());
    expect(Object.keys(envelope)).toEqual([
      'id',
      'type',
      'api_version',
      'created_at',
      'tenant_id',
      'location_id',
      'data',
    ]);
    expect(envelope).toEqual({
      id: '01900000-0000-7000-8000-0000000000e1',
      type: 'order.created',
      api_version: WEBHOOK_API_VERSION,
      created_at: '2026-06-10T13:00:00.000Z',
      tenant_id: 'acme',
      location_id: '01900000-0000-7000-8000-000000000001',
      data: { id: 'o1', number: '42' },
    });
    expect(Value.Check(EnvelopeASchema, envelope)).toBe(true);
  });

  it('writes form B with the event name and the scope under metadata', () => {
    const { type, ...rest } = makeEvent({ type: 'payment.received' });
    const envelope = envelopeB({ ...rest, event: type });
    expect(Object.keys(envelope)).toEqual(['id', 'event', 'created_at', 'api_version', 'data', 'metadata']);
    expect(Object.keys(envelope.metadata)).toEqual(['tenant_id', 'location_id']);
    expect(envelope).toMatchObject({
      event: 'payment.received',
      api_version: WEBHOOK_API_VERSION,
      metadata: { tenant_id: 'acme', location_id: '01900000-0000-7000-8000-000000000001' },
    });
    expect(Value.Check(EnvelopeBSchema, envelope)).toBe(true);
  });

  it('keeps a tenant-wide event’s location null and honours a pinned API version', () => {
    const a = envelopeA(makeEvent({ locationId: null, apiVersion: '2025-01-15' }));
    const { type, ...rest } = makeEvent({ locationId: null, apiVersion: '2025-01-15' });
    const b = envelopeB({ ...rest, event: type });
    expect(a).toMatchObject({ location_id: null, api_version: '2025-01-15' });
    expect(b).toMatchObject({ metadata: { location_id: null }, api_version: '2025-01-15' });
    expect(Value.Check(EnvelopeASchema, a)).toBe(true);
    expect(Value.Check(EnvelopeBSchema, b)).toBe(true);
  });

  it('documents only what the builders write', () => {
    expect(Object.keys(EnvelopeASchema.properties)).toEqual(Object.keys(envelopeA(makeEvent())));
    const { type, ...rest } = makeEvent();
    expect(Object.keys(EnvelopeBSchema.properties)).toEqual(Object.keys(envelopeB({ ...rest, event: type })));
    expect(Value.Check(EnvelopeASchema, { ...envelopeA(makeEvent()), api_version: 'v1' })).toBe(false);
  });
});
