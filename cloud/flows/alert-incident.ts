/**
 * The chat incident flow (spec 3): when an alert fires, an incident opens (or the alert folds into
 * its device's open incident), a dedicated chat channel is created with the escalation policy's
 * responders who are users of the tenant, the matching runbook is attached, a summary is posted,
 * the timeline records each step and an `incident` frame goes out on the chat WebSocket. Every step
 * is idempotent, so a listener that runs twice leaves one incident, one channel and one summary.
 *
 * A chat incident (one with a channel) that stays quiet for CHAT_INCIDENT_AUTO_RESOLVE_HOURS is
 * resolved by the sweeper. Activity is the latest of: a timeline entry (notes, acknowledgement,
 * a folded alert, every flow step), a new occurrence of its alert (`last_seen_at`), and a message
 * in its channel when chat can tell.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { AlertFired } from '../alerting/index.ts';
import type {
  AlertSnapshot,
  Incident,
  IncidentChange,
  IncidentFlowConfig,
  IncidentResponder,
  IncidentService,
  TimelineInput,
} from '../incidents/index.ts';
import type { Person } from '../oncall/index.ts';
import type { TenancyService } from '../tenancy/index.ts';
import { createLanes } from './lanes.ts';

export interface AlertIncidentDeps {
  alerting: {
    onFired(listener: (event: AlertFired) => void | Promise<void>): void;
    get(tenantId: string, id: string): Promise<unknown>;
  };
  chat: {
    createIncidentChannel(
      tenantId: string,
      channel: { incident_id: string; name: string; topic: string; member_user_ids: string[] },
    ): Promise<{ id: string }>;
    postSystemMessage(tenantId: string, channelId: string, content: string): Promise<unknown>;
    /** Reaches the channel's members when the frame names its channel_id. */
    broadcastIncident(tenantId: string, frame: Record<string, unknown>): unknown;
    /** The time of the channel's latest message, when chat can tell. */
    lastMessageAt?: ((tenantId: string, channelId: string) => Promise<string | null | undefined>) | undefined;
  };
  incidents: IncidentService;
  /** The tenant user a responder is, or undefined when they are not an active member. */
  userOf(tenantId: string, person: Person): Promise<string | undefined>;
  clock: Clock;
  log: Logger;
  /** autoResolveHours: chat's CHAT_INCIDENT_AUTO_RESOLVE_HOURS. */
  options: IncidentFlowConfig & { autoResolveHours: number };
}

/** Looks a person up as a tenant user: by user id first, else by email. */
export const tenantUserOf =
  (tenancy: Pick<TenancyService, 'activeMember' | 'findAccount'>) =>
  async (tenantId: string, person: Person): Promise<string | undefined> => {
    if (person.user_id && (await tenancy.activeMember(tenantId, person.user_id))) return person.user_id;
    if (!person.email?.includes('@')) return undefined;
    const account = await tenancy.findAccount(person.email);
    return account && (await tenancy.activeMember(tenantId, account.id)) ? account.id : undefined;
  };

/** What alerting would tell of an alert's transition (it has no such hook yet). */
export interface AlertChange {
  tenantId: string;
  alert: AlertFired['alert'];
  action: 'acknowledge' | 'resolve' | 'escalate';
  by?: string | null | undefined;
  note?: string | null | undefined;
}

const SWEEP_BATCH = 100;
const DURATIONS_KEPT = 100;
/** Alerts whose incident flow runs at once; in a storm the rest wait their turn (see lanes.ts). */
const FLOW_LANES = 4;

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** The alert fields the flow reads, from whatever alerting's record carries. */
export function alertSnapshot(alert: AlertFired['alert']): AlertSnapshot {
  const record = alert as AlertFired['alert'] & Record<string, unknown>;
  const labels = record.labels;
  return {
    id: alert.id,
    severity: alert.severity,
    title: alert.title,
    service: alert.service,
    started_at: alert.started_at,
    description: text(record.description) ?? null,
    labels: typeof labels === 'object' && labels !== null ? (labels as Record<string, string>) : {},
    runbook_url: text(record.runbook_url) ?? null,
  };
}

const slug = (value: string) =>
  value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);

export const channelName = (incident: Incident) =>
  ['incident', slug(incident.title), incident.id.slice(-6)].filter(Boolean).join('-');

export function summaryText(incident: Incident, responders: IncidentResponder[]) {
  const who = responders.map((r) => (r.invited ? r.name : `${r.name} (notified, not a user)`)).join(', ');
  return [
    `Incident: ${incident.title}`,
    `Severity: ${incident.severity}`,
    `Service: ${incident.service ?? 'none'}`,
    `Started: ${incident.started_at}`,
    `Description: ${incident.description ?? 'none'}`,
    `Runbook: ${incident.runbook_url ?? 'none'}`,
    `Responders: ${who || 'none'}`,
  ].join('\n');
}

/** The `incident` WebSocket frame: `event` is opened, updated, acknowledged, resolved or auto-resolved. */
export const incidentFrame = (event: string, incident: Incident) => ({
  type: 'incident',
  event,
  incident_id: incident.id,
  channel_id: incident.channel_id,
  incident,
});

export function linkAlertIncidents(deps: AlertIncidentDeps) {
  const { incidents, chat, log } = deps;
  const hours = deps.options.autoResolveHours;
  const inFlight = new Map<string, Promise<unknown>>();
  const durations: number[] = [];
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<number> | undefined;

  /** One flow at a time per incident: a second run waits and then finds the steps done. */
  function serial<T>(key: string, work: (waited: boolean) => Promise<T>): Promise<T> {
    const previous = inFlight.get(key);
    const next = (previous ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => work(previous !== undefined));
    inFlight.set(key, next);
    void next.finally(() => inFlight.get(key) === next && inFlight.delete(key)).catch(() => undefined);
    return next;
  }

  /** The responders, each looked up as a tenant user (together: each is a few reads). */
  async function responders(tenantId: string, people: Person[]) {
    const seen = new Set<string>();
    const unique = people.filter((person) => {
      const key = (person.user_id ?? person.email).toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const userIds = await Promise.all(unique.map((person) => deps.userOf(tenantId, person)));
    return unique.map(
      (person, i): IncidentResponder => ({
        name: person.name,
        email: person.email,
        user_id: userIds[i] ?? null,
        invited: userIds[i] !== undefined,
      }),
    );
  }

  /** The alert's own runbook, else the catalog's best match (cloud/incidents/runbooks.ts). */
  async function runbookFor(tenantId: string, incident: Incident, alert: AlertSnapshot) {
    if (alert.runbook_url) return { url: alert.runbook_url, id: null, source: 'the alert’s runbook' };
    const labels = alert.labels ?? {};
    const type = incident.type ?? labels.type ?? null;
    const match = await incidents.runbooks.match(tenantId, { service: incident.service, type, labels });
    return match && { url: match.url, id: match.id, source: `catalog runbook “${match.name}”` };
  }

  const responderEntry = (person: IncidentResponder): TimelineInput => ({
    kind: 'responder_invited',
    text: person.invited
      ? `${person.name} <${person.email}> invited to the channel`
      : `${person.name} <${person.email}> notified, not invited: not a user of this tenant`,
    data: { email: person.email, user_id: person.user_id, invited: person.invited },
    dedupeKey: `responder:${person.email.toLowerCase()}`,
  });

  /** A new incident, or one without a channel yet: the whole flow. */
  async function openChannel(event: AlertFired, opened: Incident, alert: AlertSnapshot) {
    const { tenantId } = event;
    const [people, runbook] = await Promise.all([
      responders(tenantId, event.responders),
      runbookFor(tenantId, opened, alert),
    ]);
    const memberIds = people.flatMap((person) => (person.user_id ? [person.user_id] : []));
    const channel = await chat.createIncidentChannel(tenantId, {
      incident_id: opened.id,
      name: channelName(opened),
      topic: `${opened.severity} · ${opened.service ?? 'no service'} · ${opened.title}`.slice(0, 250),
      member_user_ids: memberIds,
    });
    const incident = await incidents.attachChannel(tenantId, opened.id, {
      channelId: channel.id,
      responders: people,
      runbook: runbook ?? undefined,
    });
    const channelId = incident.channel_id ?? channel.id;
    const written = await incidents.recordAll(tenantId, incident.id, [
      {
        kind: 'channel_created',
        text: `Incident channel created with ${memberIds.length} member(s)`,
        data: { channel_id: channelId },
        dedupeKey: 'channel',
      },
      ...people.map(responderEntry),
      ...(runbook
        ? [
            {
              kind: 'runbook_attached' as const,
              text: `Runbook attached (${runbook.source}): ${runbook.url}`,
              data: { url: runbook.url, runbook_id: runbook.id },
              dedupeKey: 'runbook',
            },
          ]
        : []),
      { kind: 'summary_posted', text: 'Summary posted to the incident channel', dedupeKey: 'summary' },
    ]);
    if (written.some((entry) => entry.kind === 'summary_posted'))
      await chat.postSystemMessage(tenantId, channelId, summaryText(incident, people));
    await chat.broadcastIncident(tenantId, incidentFrame('opened', incident));
  }

  /** Another alert folded into an incident that has its channel: say so there. */
  async function foldIntoChannel(tenantId: string, incident: Incident, alert: AlertSnapshot) {
    await chat.postSystemMessage(
      tenantId,
      incident.channel_id!,
      `Another alert folded in (${incident.occurrences} so far): ${alert.severity} ${alert.title}`,
    );
    await chat.broadcastIncident(tenantId, incidentFrame('updated', incident));
  }

  /** Runs the flow for a fired alert; the milliseconds it took. */
  async function handle(event: AlertFired) {
    const started = performance.now();
    const alert = alertSnapshot(event.alert);
    const result = await incidents.openForAlert(event.tenantId, alert);
    await serial(result.incident.id, async (waited) => {
      // A run that waited for another reads what that one left.
      const current = waited ? await incidents.get(event.tenantId, result.incident.id) : result.incident;
      if (current.channel_id === null) return openChannel(event, current, alert);
      if (!result.replay && !result.opened) return foldIntoChannel(event.tenantId, current, alert);
    });
    const ms = performance.now() - started;
    durations.push(ms);
    if (durations.length > DURATIONS_KEPT) durations.shift();
    log.info(
      { tenant_id: event.tenantId, alert_id: alert.id, incident_id: result.incident.id, ms },
      'alert incident flow',
    );
    return { incidentId: result.incident.id, ms };
  }

  /**
   * An alert of a chat incident changed (alerting's transition hook, once it has one): an
   * acknowledgement acknowledges the open incident, the resolution of its last unresolved alert
   * resolves it, an escalation is noted; each on the timeline once.
   */
  async function alertChanged(change: AlertChange) {
    const { tenantId, alert } = change;
    const incident = await incidents.ofAlert(tenantId, alert.id);
    if (!incident) return;
    const by = change.by ?? null;
    const said = `${change.note ? `: ${change.note}` : ''}`;
    if (change.action === 'escalate') {
      await incidents.record(tenantId, incident.id, {
        kind: 'escalated',
        text: `Alert “${alert.title}” escalated to level ${alert.escalation_level}`,
        data: { alert_id: alert.id, level: alert.escalation_level },
        dedupeKey: `escalated:${alert.id}:${alert.escalation_level}`,
      });
      return;
    }
    const acknowledge = change.action === 'acknowledge';
    const entry = {
      kind: acknowledge ? ('acknowledged' as const) : ('resolved' as const),
      text: `Alert “${alert.title}” ${acknowledge ? 'acknowledged' : 'resolved'}${by ? ` by ${by}` : ''}${said}`,
      dedupeKey: `alert-${change.action}:${alert.id}`,
    };
    const moves = acknowledge
      ? incident.status === 'open'
      : incident.status !== 'resolved' && (await allResolved(incident));
    if (!moves) {
      await incidents.record(tenantId, incident.id, { ...entry, actor: by, data: { alert_id: alert.id } });
      return;
    }
    await incidents
      .systemMove(tenantId, incident.id, change.action, { ...entry, by })
      .catch((error: unknown) =>
        log.info({ err: error, incident_id: incident.id }, 'incident already moved'),
      );
  }

  async function allResolved(incident: Incident) {
    for (const alertId of await incidents.alertsOf(incident.tenant_id, incident.id)) {
      const alert = (await deps.alerting.get(incident.tenant_id, alertId)) as
        | { status?: unknown }
        | undefined;
      if (alert && alert.status !== 'resolved') return false;
    }
    return true;
  }

  const ANNOUNCED = {
    acknowledge: { event: 'acknowledged', text: 'Incident acknowledged.' },
    resolve: { event: 'resolved', text: 'Incident resolved.' },
    auto_resolve: {
      event: 'auto_resolved',
      text: `Incident auto-resolved after ${hours} h without activity.`,
    },
  } as const;

  /** A transition of a chat incident, whoever made it: said in its channel and on the WebSocket. */
  async function announce(change: IncidentChange) {
    const { tenantId, incident } = change;
    if (!incident.channel_id) return;
    const { event, text: words } = ANNOUNCED[change.action];
    await chat.postSystemMessage(tenantId, incident.channel_id, words);
    await chat.broadcastIncident(tenantId, incidentFrame(event, incident));
  }

  async function lastActivity(incident: Incident) {
    const times = [incident.last_activity_at];
    if (incident.alert_id) {
      const alert = (await deps.alerting.get(incident.tenant_id, incident.alert_id)) as
        | { last_seen_at?: unknown }
        | undefined;
      if (typeof alert?.last_seen_at === 'string') times.push(alert.last_seen_at);
    }
    if (incident.channel_id && chat.lastMessageAt) {
      const at = await chat.lastMessageAt(incident.tenant_id, incident.channel_id);
      if (at) times.push(at);
    }
    return times.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));
  }

  /** Resolves the chat incidents quiet for the configured hours; how many it resolved. */
  async function sweepOnce() {
    const cutoff = new Date(deps.clock.now().getTime() - hours * 3_600_000).toISOString();
    let resolved = 0;
    for (;;) {
      const quiet = await incidents.quiet(cutoff, SWEEP_BATCH);
      for (const incident of quiet) {
        const activity = await lastActivity(incident);
        if (Date.parse(activity) > Date.parse(cutoff)) {
          await incidents.touch(incident.tenant_id, incident.id, activity);
          continue;
        }
        const done = await incidents
          .systemMove(incident.tenant_id, incident.id, 'resolve', {
            by: null,
            kind: 'auto_resolved',
            text: `Auto-resolved after ${hours} h without activity (last at ${activity})`,
            dedupeKey: 'auto_resolved',
          })
          .catch((error: unknown) =>
            log.warn({ err: error, incident_id: incident.id }, 'auto-resolve skipped'),
          );
        if (done) resolved += 1;
      }
      if (quiet.length < SWEEP_BATCH) return resolved;
    }
  }

  if (deps.options.enabled) {
    const lanes = createLanes(FLOW_LANES);
    deps.alerting.onFired(async (event) => {
      try {
        await lanes.run(() => handle(event));
      } catch (error) {
        log.error(
          { err: error, tenant_id: event.tenantId, alert_id: event.alert.id },
          'alert incident flow failed',
        );
      }
    });
  }
  incidents.onChange(announce);

  return {
    handle,
    alertChanged,
    /** How long the latest flows took, alert fired to frame sent (ms, oldest first). */
    durations: () => [...durations],
    /** One sweep now (tests call it after moving the manual clock). */
    sweepQuiet(): Promise<number> {
      sweeping ??= sweepOnce().finally(() => {
        sweeping = undefined;
      });
      return sweeping;
    },
    start() {
      if (timer || !deps.options.enabled) return;
      timer = setInterval(() => {
        void this.sweepQuiet().catch((error: unknown) => log.error({ err: error }, 'incident sweep failed'));
      }, deps.options.sweepSeconds * 1000);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await sweeping?.catch(() => undefined);
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}

export type AlertIncidentFlow = ReturnType<typeof linkAlertIncidents>;
