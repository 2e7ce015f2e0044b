/**
 * The two envelopes events are published in: form A on the subscription interface,
 * form B on the admin interface. Receivers may hash or diff the raw body, so each builder writes
 * its keys in the documented order, and the schemas document exactly these fields.
 */
import { type Static, Type } from '@sinclair/typebox';

/** The `api_version` every envelope carries; a new date marks a change receivers can see. */
export const WEBHOOK_API_VERSION = '2026-11-01';

const API_VERSION_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

const EventId = Type.String({ minLength: 1, description: 'Event id; receivers deduplicate by it' });
const ApiVersion = Type.String({ pattern: API_VERSION_PATTERN, description: 'YYYY-MM-DD' });
const CreatedAt = Type.String({ format: 'date-time', description: 'When the event occurred (UTC)' });
const LocationId = Type.Union([Type.String(), Type.Null()], {
  description: 'The location the event happened at; null for a tenant-wide event',
});
const Data = Type.Record(Type.String(), Type.Unknown(), { description: 'The event data' });

export const EnvelopeASchema = Type.Object(
  {
    id: EventId,
    type: Type.String({ description: 'Event name of the subscription interface' }),
    api_version: ApiVersion,
    created_at: CreatedAt,
    tenant_id: Type.String(),
    location_id: LocationId,
    data: Data,
  },
  { description: 'Subscription-interface event envelope (form A)' },
);
export type EnvelopeA = Static<typeof EnvelopeASchema>;

export const EnvelopeBSchema = Type.Object(
  {
    id: EventId,
    event: Type.String({ description: 'Event name of the admin interface' }),
    created_at: CreatedAt,
    api_version: ApiVersion,
    data: Data,
    metadata: Type.Object({ tenant_id: Type.String(), location_id: LocationId }),
  },
  { description: 'Admin-interface event envelope (form B)' },
);
export type EnvelopeB = Static<typeof EnvelopeBSchema>;

interface EnvelopeInput {
  id: string;
  createdAt: string;
  tenantId: string;
  locationId: string | null;
  data: Record<string, unknown>;
  apiVersion?: string | undefined;
}

export const envelopeA = (input: EnvelopeInput & { type: string }): EnvelopeA => ({
  id: input.id,
  type: input.type,
  api_version: input.apiVersion ?? WEBHOOK_API_VERSION,
  created_at: input.createdAt,
  tenant_id: input.tenantId,
  location_id: input.locationId,
  data: input.data,
});

export const envelopeB = (input: EnvelopeInput & { event: string }): EnvelopeB => ({
  id: input.id,
  event: input.event,
  created_at: input.createdAt,
  api_version: input.apiVersion ?? WEBHOOK_API_VERSION,
  data: input.data,
  metadata: { tenant_id: input.tenantId, location_id: input.locationId },
});
