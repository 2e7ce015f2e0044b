/**
 * Who may publish and read which topics on the store's broker. Pure functions over a principal and
 * a topic or filter, so every rule is unit-tested without a socket.
 */

import {
  DEVICE_PUBLISH_CHANNELS,
  type DeviceType,
  deviceTopic,
  parseDeviceTopic,
  storeChannelFilter,
  storeStatusFilter,
} from '../../../shared/mqtt/topics.ts';
import { MANAGER_ROLES } from '../../../shared/roles.ts';

export type BrokerPrincipal =
  | { kind: 'device'; deviceId: string; deviceType: DeviceType; locationId: string }
  | { kind: 'staff'; userId: string; roles: string[]; locationId: string }
  | { kind: 'developer' }; // plain TCP in development: everything allowed, logged as such

export type Decision = { allowed: true } | { allowed: false; reason: string };

const ALLOW: Decision = { allowed: true };
const deny = (reason: string): Decision => ({ allowed: false, reason });

export const isManager = (roles: readonly string[]) =>
  roles.some((role) => (MANAGER_ROLES as readonly string[]).includes(role));

/** The one topic a device reads: its own commands. */
export const ownCommandTopic = (
  device: Extract<BrokerPrincipal, { kind: 'device' }>,
  prefix: string,
): string => deviceTopic({ ...device, channel: 'cmd', prefix });

/**
 * The filters a staff screen may read: every role sees the store's device board; managers also see
 * alerts and telemetry. Nobody else's store, and never commands or acknowledgements.
 */
export function staffReadFilters(roles: readonly string[], locationId: string, prefix: string): string[] {
  const filters = [storeStatusFilter(locationId, prefix)];
  if (isManager(roles)) {
    filters.push(storeChannelFilter(locationId, 'alert', prefix));
    filters.push(storeChannelFilter(locationId, 'telemetry', prefix));
  }
  return filters;
}

/**
 * True when every topic `filter` can match is also matched by `pattern` (filter ⊆ pattern).
 * A `+` in the filter is covered only by a `+` (or `#`) in the pattern, a `#` only by a `#`.
 */
export function filterCovers(pattern: string, filter: string): boolean {
  const p = pattern.split('/');
  const f = filter.split('/');
  for (let i = 0; i < f.length; i += 1) {
    const pl = p[i];
    const fl = f[i]!;
    if (pl === undefined) return false;
    if (pl === '#') return true;
    if (fl === '#') return false;
    if (pl === '+') continue;
    if (fl === '+' || fl !== pl) return false;
  }
  // `a/#` also matches `a` itself, so a pattern one `#` longer still covers the filter.
  return p.length === f.length || (p.length === f.length + 1 && p[f.length] === '#');
}

const isReserved = (topic: string) => topic.startsWith('$');

export function canPublish(principal: BrokerPrincipal, topic: string, prefix: string): Decision {
  if (isReserved(topic)) return deny('reserved topic');
  if (principal.kind === 'developer') return ALLOW;
  const parsed = parseDeviceTopic(topic, prefix);
  if (!parsed) return deny('not a device topic');
  if (principal.kind === 'device') {
    const own =
      parsed.deviceId === principal.deviceId &&
      parsed.deviceType === principal.deviceType &&
      parsed.locationId === principal.locationId;
    if (!own) return deny("another device's topic");
    if (!DEVICE_PUBLISH_CHANNELS.includes(parsed.channel))
      return deny(`devices do not publish ${parsed.channel}`);
    return ALLOW;
  }
  if (parsed.channel !== 'cmd') return deny('only devices publish device channels');
  if (parsed.locationId !== principal.locationId) return deny("another store's device");
  if (!isManager(principal.roles)) return deny('commands need a manager');
  return ALLOW;
}

/** A subscription is allowed only when every topic it can match is readable. */
export function canSubscribe(principal: BrokerPrincipal, filter: string, prefix: string): Decision {
  if (principal.kind === 'developer') return ALLOW;
  if (principal.kind === 'device') {
    return filter === ownCommandTopic(principal, prefix) ? ALLOW : deny('devices read only their own cmd');
  }
  const allowed = staffReadFilters(principal.roles, principal.locationId, prefix);
  return allowed.some((pattern) => filterCovers(pattern, filter)) ? ALLOW : deny('not readable by this role');
}

/** `topicMatches` on a filter and a topic already split into levels. */
function levelsMatch(filter: readonly string[], topic: readonly string[]) {
  for (let i = 0; i < filter.length; i += 1) {
    if (filter[i] === '#') return true;
    if (i >= topic.length) return false;
    if (filter[i] !== '+' && filter[i] !== topic[i]) return false;
  }
  return filter.length === topic.length;
}

/**
 * The last check before a message leaves for a client (restored sessions, retained messages), for
 * one principal: its filters are worked out once per session rather than for every message.
 */
export function readableBy(principal: BrokerPrincipal, prefix: string): (topic: string) => boolean {
  if (principal.kind === 'developer') return () => true;
  if (principal.kind === 'device') {
    const own = ownCommandTopic(principal, prefix);
    return (topic) => topic === own;
  }
  const filters = staffReadFilters(principal.roles, principal.locationId, prefix).map((f) => f.split('/'));
  return (topic) => {
    if (isReserved(topic)) return false;
    const levels = topic.split('/');
    return filters.some((filter) => levelsMatch(filter, levels));
  };
}

export const canRead = (principal: BrokerPrincipal, topic: string, prefix: string): boolean =>
  readableBy(principal, prefix)(topic);
