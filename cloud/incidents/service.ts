import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Db, Store } from '../db/index.ts';
import type { EventLog } from '../events/index.ts';
import { type AlertSnapshot, alertIncidentRow, deviceOfAlert, titleIncidentRow } from './alert-incidents.ts';
import { deviceIncidentRow, incidentsFromEvents, locationLabel, occurrenceEntry } from './device-alerts.ts';
import {
  deviceElsewhere,
  deviceMissing,
  type IncidentAction,
  incidentNotFound,
  invalidTransition,
  locationMissing,
} from './errors.ts';
import { createRunbookCatalog } from './runbooks.ts';
import type { NewDeviceIncidentBody, NewIncidentBody } from './schemas.ts';
import {
  alertLink,
  alertsOfIncident,
  appendTimeline,
  appendTimelineAll,
  attachChannel,
  type IncidentFilter,
  type IncidentPatch,
  incident,
  incidents,
  insertIncident,
  linkAlert,
  openOrRepeat,
  quietIncidents,
  timeline,
  touchActivity,
  transition,
  updateIncident,
} from './store.ts';
import { DEFAULT_SEVERITY, type IncidentResponder, type IncidentRow, type IncidentStatus } from './tables.ts';
import { type TimelineInput, timelineRow } from './timeline.ts';
import { type Incident, toIncident, toTimelineEntry } from './views.ts';

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

/** Who asked, for the record and the audit trail; a null user is the system (e.g. the sweeper). */
export interface Actor {
  userId: string;
  ipAddress?: string | undefined;
}

/** What changed, for whoever follows incidents (the chat flow posts it to the channel). */
export interface IncidentChange {
  tenantId: string;
  incident: Incident;
  action: IncidentAction | 'auto_resolve';
  by: string | null;
}

const TRANSITIONS: Record<IncidentAction, { from: readonly IncidentStatus[]; to: IncidentStatus }> = {
  acknowledge: { from: ['open'], to: 'acknowledged' },
  resolve: { from: ['open', 'acknowledged'], to: 'resolved' },
};

interface MoveOptions {
  by: string | null;
  kind: 'acknowledged' | 'resolved' | 'auto_resolved';
  text: string;
  dedupeKey?: string | undefined;
}

/**
 * Incidents: opened by a create request, a device alert event or a fired alert; listed,
 * acknowledged and resolved, each step on the incident's timeline. A repeat alert for a device and
 * type with an unresolved incident is folded into it. Registers its consumer on the event log.
 */
export function createIncidentService(deps: IncidentDeps) {
  const db = deps.store.db;
  const log = deps.log.child({ module: 'incidents' });
  const now = () => deps.clock.now().toISOString();
  const runbooks = createRunbookCatalog({ db, clock: deps.clock, newId: deps.newId });
  const listeners: Array<(change: IncidentChange) => void | Promise<void>> = [];
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

  const append = (to: Db, tenantId: string, incidentId: string, input: TimelineInput, at = now()) =>
    appendTimeline(to, timelineRow(deps.newId, tenantId, incidentId, at, input));

  async function requireRow(tenantId: string, id: string) {
    const row = await incident(db, tenantId, id);
    if (!row) throw incidentNotFound();
    return row;
  }

  async function notify(change: IncidentChange) {
    for (const listener of listeners) {
      try {
        await listener(change);
      } catch (error) {
        log.error({ err: error, incident_id: change.incident.id }, 'incident listener failed');
      }
    }
  }

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

  async function move(tenantId: string, id: string, action: IncidentAction, options: MoveOptions) {
    const at = now();
    const { from, to } = TRANSITIONS[action];
    const patch: IncidentPatch =
      to === 'acknowledged'
        ? { status: to, acknowledged_at: at, acknowledged_by: options.by, updated_at: at }
        : { status: to, resolved_at: at, resolved_by: options.by, updated_at: at };
    const row = await db.transaction().execute(async (trx) => {
      const moved = await transition(trx, tenantId, id, from, patch);
      if (moved) {
        const entry = {
          kind: options.kind,
          text: options.text,
          actor: options.by,
          dedupeKey: options.dedupeKey,
        };
        await append(trx, tenantId, id, entry, at);
      }
      return moved;
    });
    if (!row) {
      const current = await incident(db, tenantId, id);
      throw current ? invalidTransition(current.status, action) : incidentNotFound();
    }
    const view = toIncident({ ...row, last_activity_at: at });
    await notify({
      tenantId,
      incident: view,
      action: options.kind === 'auto_resolved' ? 'auto_resolve' : action,
      by: options.by,
    });
    return { row, view };
  }

  async function userMove(tenantId: string, id: string, action: IncidentAction, actor: Actor, note?: string) {
    const verb = action === 'acknowledge' ? 'Acknowledged' : 'Resolved';
    const kind = action === 'acknowledge' ? 'acknowledged' : 'resolved';
    const text = note ? `${verb}: ${note}` : verb;
    const { row, view } = await move(tenantId, id, action, { by: actor.userId, kind, text });
    await audit(tenantId, actor, action, row);
    return view;
  }

  return {
    runbooks,

    /** Called after each acknowledgement or resolution, by a user, an alert or the sweeper. */
    onChange(listener: (change: IncidentChange) => void | Promise<void>) {
      listeners.push(listener);
    },

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
      const row = await db.transaction().execute(async (trx) => {
        const opened = await openOrRepeat(trx, deviceIncidentRow(alert, id, at));
        const entry = occurrenceEntry(opened, id, deps.newId(), at, input.description);
        await appendTimeline(trx, { ...entry, actor: actor.userId });
        return opened;
      });
      const created = row.id === id;
      await audit(tenantId, actor, 'create', row, { repeat: !created });
      return { incident: toIncident(row), created };
    },

    /** The title form (the incident create request); the runbook rule of runbooks.ts applies. */
    async create(tenantId: string, input: NewIncidentBody, actor: Actor) {
      const at = now();
      const runbook = input.runbook_url
        ? undefined
        : await runbooks.match(tenantId, { service: input.service ?? null, type: null, labels: {} });
      const row = titleIncidentRow(tenantId, input, deps.newId(), at, {
        url: input.runbook_url ?? runbook?.url ?? null,
        id: runbook?.id ?? null,
      });
      await db.transaction().execute(async (trx) => {
        await insertIncident(trx, row);
        await append(
          trx,
          tenantId,
          row.id,
          { kind: 'opened', text: `Opened: ${row.title}`, actor: actor.userId },
          at,
        );
        if (row.runbook_url) {
          const text = `Runbook attached: ${runbook?.name ?? row.runbook_url}`;
          const data = { url: row.runbook_url, runbook_id: row.runbook_id };
          await append(
            trx,
            tenantId,
            row.id,
            { kind: 'runbook_attached', text, data, actor: actor.userId },
            at,
          );
        }
      });
      await audit(tenantId, actor, 'create', row);
      return toIncident(await requireRow(tenantId, row.id));
    },

    get: async (tenantId: string, id: string) => toIncident(await requireRow(tenantId, id)),

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

    /** Oldest first; `cursor` is the previous page's `next_cursor`. */
    async timeline(tenantId: string, id: string, page: { limit: number; cursor?: string | undefined }) {
      await requireRow(tenantId, id);
      const rows = await timeline(db, tenantId, id, { limit: page.limit + 1, after: page.cursor });
      const items = rows.slice(0, page.limit).map(toTimelineEntry);
      return { items, nextCursor: rows.length > page.limit ? (items.at(-1)?.id ?? null) : null };
    },

    async addNote(tenantId: string, id: string, text: string, actor: Actor) {
      await requireRow(tenantId, id);
      const row = await append(db, tenantId, id, { kind: 'note', text, actor: actor.userId });
      return toTimelineEntry(row!);
    },

    /** A system entry (the chat flow's steps); undefined when its dedupe key was written before. */
    async record(tenantId: string, id: string, input: TimelineInput) {
      const row = await append(db, tenantId, id, input);
      return row && toTimelineEntry(row);
    },

    acknowledge: (tenantId: string, id: string, actor: Actor, note?: string) =>
      userMove(tenantId, id, 'acknowledge', actor, note),
    resolve: (tenantId: string, id: string, actor: Actor, note?: string) =>
      userMove(tenantId, id, 'resolve', actor, note),

    /** A transition the system makes (an alert's acknowledgement, the quiet sweeper). */
    async systemMove(tenantId: string, id: string, action: IncidentAction, options: MoveOptions) {
      return (await move(tenantId, id, action, options)).view;
    },

    /**
     * Opens the incident of a fired alert, or folds the alert into its device's unresolved
     * incident. `replay` is true when the alert was handled before (nothing changed).
     */
    async openForAlert(tenantId: string, alert: AlertSnapshot) {
      const known = await alertLink(db, tenantId, alert.id);
      if (known)
        return {
          incident: toIncident(await requireRow(tenantId, known.incident_id)),
          opened: false,
          replay: true,
        };
      try {
        return await db.transaction().execute(async (trx) => {
          const at = now();
          const candidate = alertIncidentRow(tenantId, alert, deps.newId(), at);
          const row = deviceOfAlert(alert)
            ? await openOrRepeat(trx, candidate)
            : await insertIncident(trx, candidate);
          const opened = row.id === candidate.id;
          await linkAlert(trx, {
            tenant_id: tenantId,
            alert_id: alert.id,
            incident_id: row.id,
            created_at: at,
          });
          const entry = opened
            ? { kind: 'opened' as const, text: `Opened from alert ${alert.severity}: ${alert.title}` }
            : { kind: 'alert' as const, text: `Alert ${alert.severity} folded in: ${alert.title}` };
          await append(trx, tenantId, row.id, { ...entry, data: { alert_id: alert.id } }, at);
          // A device incident raised by a store before any alert takes the first alert as its own.
          const linked =
            row.alert_id === null
              ? ((await updateIncident(trx, tenantId, row.id, { alert_id: alert.id })) ?? row)
              : row;
          return { incident: toIncident({ ...linked, last_activity_at: at }), opened, replay: false };
        });
      } catch (error) {
        if (!deps.store.isUniqueViolation(error)) throw error;
        const link = await alertLink(db, tenantId, alert.id);
        if (!link) throw error;
        return {
          incident: toIncident(await requireRow(tenantId, link.incident_id)),
          opened: false,
          replay: true,
        };
      }
    },

    /** The incident an alert went into, if any. */
    async ofAlert(tenantId: string, alertId: string) {
      const link = await alertLink(db, tenantId, alertId);
      return link ? toIncident(await requireRow(tenantId, link.incident_id)) : undefined;
    },

    /** Every alert that went into the incident. */
    alertsOf: async (tenantId: string, incidentId: string) =>
      (await alertsOfIncident(db, tenantId, incidentId)).map((row) => row.alert_id),

    /** The alert an incident was opened for (AIOps' RCA accepts an incident id). */
    async alertOf(tenantId: string, incidentId: string) {
      return (await incident(db, tenantId, incidentId))?.alert_id ?? undefined;
    },

    /** Entries of one incident at once; those written (an entry whose dedupe key was seen is not). */
    async recordAll(tenantId: string, id: string, inputs: TimelineInput[]) {
      const at = now();
      const rows = inputs.map((input) => timelineRow(deps.newId, tenantId, id, at, input));
      return (await appendTimelineAll(db, rows)).map(toTimelineEntry);
    },

    /**
     * The chat flow's outcome: the channel (kept when one is set already), the responders, and the
     * runbook when one was found. The incident after.
     */
    async attachChannel(
      tenantId: string,
      id: string,
      setup: {
        channelId: string;
        responders: IncidentResponder[];
        runbook?: { url: string; id: string | null } | undefined;
      },
    ) {
      const row = await attachChannel(db, tenantId, id, {
        channel_id: setup.channelId,
        responders: JSON.stringify(setup.responders),
        ...(setup.runbook ? { runbook_url: setup.runbook.url, runbook_id: setup.runbook.id } : {}),
        updated_at: now(),
      });
      if (!row) throw incidentNotFound();
      return toIncident(row);
    },

    /** Unresolved chat incidents (any tenant) without activity since `before`, the quietest first. */
    quiet: async (before: string, limit: number) => (await quietIncidents(db, before, limit)).map(toIncident),

    /** Moves the incident's last activity forward to `at` (activity seen outside the timeline). */
    async touch(tenantId: string, id: string, at: string) {
      await touchActivity(db, tenantId, id, at);
    },
  };
}

export type IncidentService = ReturnType<typeof createIncidentService>;
