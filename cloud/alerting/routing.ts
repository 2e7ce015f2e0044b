/**
 * Who hears of an alert and how: the documented severity table, a policy level's targets and channels,
 * and the notification requests they make, each with a deterministic dedupe key so a replayed
 * step never notifies twice.
 */
import { createHash } from 'node:crypto';
import type { NotificationChannel, NotificationRequest } from '../notify/index.ts';
import type { Person } from '../oncall/index.ts';
import type { EscalationMode, Severity } from './tables.ts';

/** Spec 3's severity table: P1 voice, SMS and all channels ... P5 log only. */
export const SEVERITY_CHANNELS: Record<Severity, readonly NotificationChannel[]> = {
  P1: ['voice', 'sms', 'email', 'team_chat', 'push', 'console'],
  P2: ['sms', 'team_chat'],
  P3: ['team_chat', 'email'],
  P4: ['email'],
  P5: [],
};

/** Channels that reach a person; the others (team chat, the console feed) go to a room. */
const PERSONAL: ReadonlySet<NotificationChannel> = new Set(['voice', 'sms', 'email', 'push']);
/** What a notify-only maintenance window holds back: the channels that page someone. */
const PAGING: ReadonlySet<NotificationChannel> = new Set(['voice', 'sms', 'push']);

export type Target =
  | { type: 'oncall'; team: string; role: 'primary' | 'secondary' }
  | { type: 'person'; person: Person }
  | { type: 'team_chat' }
  | { type: 'ai_agent' };

export interface PolicyLevel {
  targets: Target[];
  /** Absent: the alert severity's channels. */
  channels?: NotificationChannel[] | undefined;
  /** Minutes before the next level (or, sequential, the next target); null: the last stop. */
  timeout_minutes: number | null;
}

/** The policy as the alert opened under it (plus its round-robin start), kept on the alert. */
export interface EscalationPlan {
  policy_id: string | null;
  mode: EscalationMode;
  skip_when_acknowledged: boolean;
  levels: PolicyLevel[];
  /** Round-robin: which target of each level comes first for this alert. */
  offset: number;
  /** False in a notify-only window: no voice, SMS or push, and no escalation. */
  paging: boolean;
}

/** A target as found at the moment its level fires: on-call resolves to whoever is on call. */
export type ResolvedTarget = { key: string; person: Person | null };

export function fingerprintOf(input: {
  source: string;
  service: string;
  title: string;
  labels: Record<string, string>;
}) {
  const labels = Object.entries(input.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const material = JSON.stringify([input.source, input.service, input.title, labels]);
  return createHash('sha256').update(material).digest('hex');
}

/** Targets that are people, in the order sequential and round-robin walk them. */
export const peopleOf = (level: PolicyLevel) =>
  level.targets.filter((target) => target.type === 'oncall' || target.type === 'person');

export const personKey = (person: Person) => `person:${person.email.toLowerCase()}`;

/** Which people a step notifies: all of them in parallel, one (rotated by `offset`) otherwise. */
export function peopleAt<T>(plan: EscalationPlan, people: readonly T[], position: number): T[] {
  if (plan.mode === 'parallel' || people.length === 0) return [...people];
  const start = plan.mode === 'round_robin' ? plan.offset : 0;
  return [people[(start + position) % people.length]!];
}

/** The step after (level, position), or undefined when escalation ends there. */
export function nextStep(plan: EscalationPlan, level: number, position: number) {
  const current = plan.levels[level - 1];
  if (!plan.paging || !current || current.timeout_minutes === null) return undefined;
  const delayMs = Math.round(current.timeout_minutes * 60_000);
  const people = peopleOf(current).length;
  if (plan.mode !== 'parallel' && position + 1 < people) return { level, position: position + 1, delayMs };
  if (level >= plan.levels.length) return undefined;
  return { level: level + 1, position: 0, delayMs };
}

export function channelsFor(plan: EscalationPlan, severity: Severity, level: number) {
  if (severity === 'P5') return [];
  const chosen = plan.levels[level - 1]?.channels ?? SEVERITY_CHANNELS[severity];
  return plan.paging ? [...chosen] : chosen.filter((channel) => !PAGING.has(channel));
}

const reachable = (person: Person, channel: NotificationChannel) =>
  channel === 'email'
    ? Boolean(person.email)
    : channel === 'push'
      ? Boolean(person.push_token)
      : Boolean(person.phone);

export interface AlertMessage {
  id: string;
  severity: Severity;
  service: string;
  title: string;
  description: string | null;
  runbook_url: string | null;
}

function message(alert: AlertMessage, level: number, channel: NotificationChannel, forAgent = false) {
  const subject = `[${alert.severity}] ${alert.service}: ${alert.title}`;
  const lines = [
    subject,
    alert.description ?? '',
    alert.runbook_url ? `Runbook: ${alert.runbook_url}` : '',
    level > 1 ? `Escalation level ${level}: not acknowledged yet.` : '',
    channel === 'voice' ? 'Press 1 to acknowledge, 2 to escalate, 3 for details.' : '',
    forAgent ? 'AI support agent: triage this alert and propose a remediation.' : '',
  ];
  return { subject, text: lines.filter((line) => line !== '').join('\n') };
}

/**
 * The requests of one step: each chosen person on each personal channel they can be reached on,
 * and, on a level's first step, the rooms (team chat, console feed, the AI agent's console).
 */
export function requestsFor(
  alert: AlertMessage,
  plan: EscalationPlan,
  step: { level: number; position: number },
  people: ResolvedTarget[],
  rooms: { teamChat: boolean; aiAgent: boolean },
): NotificationRequest[] {
  const channels = channelsFor(plan, alert.severity, step.level);
  if (channels.length === 0) return [];
  const requests = new Map<string, NotificationRequest>();
  const add = (key: string, channel: NotificationChannel, recipient: Person | null, forAgent = false) => {
    const dedupe_key = `alert:${alert.id}:L${step.level}:${key}:${channel}`;
    const request = { channel, recipient, severity: alert.severity, alert_id: alert.id, dedupe_key };
    requests.set(dedupe_key, { ...request, ...message(alert, step.level, channel, forAgent) });
  };
  for (const { key, person } of people) {
    if (!person) continue;
    for (const channel of channels)
      if (PERSONAL.has(channel) && reachable(person, channel)) add(key, channel, person);
  }
  if (step.position > 0) return [...requests.values()];
  if (channels.includes('team_chat') || rooms.teamChat) add('team', 'team_chat', null);
  if (channels.includes('console')) add('feed', 'console', null);
  if (rooms.aiAgent) add('ai_agent', 'console', null, true);
  return [...requests.values()];
}
