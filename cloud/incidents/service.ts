import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Store } from '../db/index.ts';
import type { EventLog } from '../events/index.ts';
import { deviceIncidentRow, incidentsFromEvents, locationLabel } from './device-alerts.ts';
import {
  deviceElsewhere,
  deviceMissing,
  type IncidentAction,
  incidentNotFound,
  invalidTransition,
  locationMissing,
} from './errors.ts';
import type { NewDeviceIncidentBody } from './schemas.ts';
import {
  type IncidentFilter,
  type IncidentPatch,
  incident,
  incidents,
  openOrRepeat,
  transition,
} from './store.ts';
import { DEFAULT_SEVERITY, type IncidentRow, type IncidentStatus } from './tables.ts';
import { toIncident } from './views.ts';

export interface IncidentDeps {
  store: Store;
  events: EventLog;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  audit?: AuditLog | undefined;
  /** Tenancy's answer: the location's name, or undefined when the tenant has no such location. */
  locationName(tenantId: string, locationId: string): Promise<string | undefined>;
  /** The device registry's answer, or undefined when the tenant has no such device. */
  device(
    tenantId: string,
    deviceId: string,
  ): Promise<{ location_id: string; device_type: string } | undefined>;
}

/** Who asked, for the record and the audit trail. */
export interface Actor {
  userId: string;
  ipAddress?: string | undefined;
}

const TRANSITIONS: Record<IncidentAction, { from: readonly IncidentStatus[]; to: IncidentStatus }> = {
  acknowledge: { from: ['open'], to: 'acknowledged' },
  resolve: { from: ['open', 'acknowledged'], to: 'resolved' },
};

/**
 * Incidents: opened by a create request or by a device alert event, listed, acknowledged and
 * resolved. A repeat alert for a device and type with an unresolved incident is folded into it.
 * Registers its consumer on the event log.
 */
export function createIncidentService(deps: IncidentDeps) {
  const db = deps.store.db;
  const log = deps.log.child({ module: 'incidents' });
  const now = () => deps.clock.now().toISOString();
  deps.events.consume(incidentsFromEvents({ clock: deps.clock, newId: deps.newId, log }));

  const audit = (tenantId: string, actor: Actor, action: string, row: IncidentRow, extra = {}) =>
    deps.audit?.record({
      action: `incident.${action}`,
      outcome: 'success',
      tenantId,
      userId: actor.userId,
      ipAddress: actor.ipAddress,
      details: { incident_id: row.id, status: row.status, ...extra },
    });

  async function requireTarget(tenantId: string, input: NewDeviceIncidentBody) {
    const [location, device] = await Promise.all([
      deps.locationName(tenantId, input.location_id),
      deps.device(tenantId, input.device_id),
    ]);
    if (location === undefined) throw locationMissing();
    if (!device) throw deviceMissing();
    if (device.location_id !== input.location_id) throw deviceElsewhere();
    return { location, device };
  }

  async function move(tenantId: string, id: string, action: IncidentAction, actor: Actor) {
    const at = now();
    const { from, to } = TRANSITIONS[action];
    const patch: IncidentPatch =
      to === 'acknowledged'
        ? { status: to, acknowledged_at: at, acknowledged_by: actor.userId, updated_at: at }
        : { status: to, resolved_at: at, resolved_by: actor.userId, updated_at: at };
    const row = await transition(db, tenantId, id, from, patch);
    if (!row) {
      const current = await incident(db, tenantId, id);
      throw current ? invalidTransition(current.status, action) : incidentNotFound();
    }
    await audit(tenantId, actor, action, row);
    return toIncident(row);
  }

  return {
    /** The device form: `created` is false when the alert was folded into an unresolved incident. */
    async createFromDevice(tenantId: string, input: NewDeviceIncidentBody, actor: Actor) {
      const { location, device } = await requireTarget(tenantId, input);
      const at = now();
      const alert = {
        tenantId,
        type: input.type,
        deviceId: input.device_id,
        locationId: input.location_id,
        severity: input.severity ?? DEFAULT_SEVERITY,
        description: input.description,
        deviceLabel: device.device_type,
        locationLabel: locationLabel(location, input.location_id),
        occurredAt: at,
        source: 'api' as const,
        sourceEventId: null,
      };
      const id = deps.newId();
      const row = await openOrRepeat(db, deviceIncidentRow(alert, id, at));
      const created = row.id === id;
      await audit(tenantId, actor, 'create', row, { repeat: !created });
      return { incident: toIncident(row), created };
    },

    async get(tenantId: string, id: string) {
      const row = await incident(db, tenantId, id);
      if (!row) throw incidentNotFound();
      return toIncident(row);
    },

    /** Newest first; `cursor` is the previous page's `next_cursor`. */
    async list(
      tenantId: string,
      filter: IncidentFilter,
      page: { limit: number; cursor?: string | undefined },
    ) {
      const rows = await incidents(db, tenantId, filter, { limit: page.limit + 1, before: page.cursor });
      const items = rows.slice(0, page.limit).map(toIncident);
      return { items, nextCursor: rows.length > page.limit ? (items.at(-1)?.id ?? null) : null };
    },

    acknowledge: (tenantId: string, id: string, actor: Actor) => move(tenantId, id, 'acknowledge', actor),
    resolve: (tenantId: string, id: string, actor: Actor) => move(tenantId, id, 'resolve', actor),
  };
}

export type IncidentService = ReturnType<typeof createIncidentService>;
