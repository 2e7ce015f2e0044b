/**
 * MQTT topics of the device plane, built and read only here. A store device talks on
 * `<prefix>/<device_type>/<location_id>/<device_id>/<channel>`; an appliance and the cloud talk on
 * `<prefix>/fleet/<tenant_id>/<appliance_id>/<channel>`. Spec document 3: critical alerts QoS 2,
 * telemetry QoS 1, status QoS 0; the store's device board is `<prefix>/+/<location_id>/+/status`.
 */
export const DEFAULT_TOPIC_PREFIX = 'edge';

export const DEVICE_TYPES = ['kds', 'printer', 'sensor', 'camera', 'pos', 'appliance'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** Up: status, telemetry, alert, ack. Down: cmd. */
export const DEVICE_CHANNELS = ['status', 'telemetry', 'alert', 'ack', 'cmd'] as const;
export type DeviceChannel = (typeof DEVICE_CHANNELS)[number];
export const DEVICE_PUBLISH_CHANNELS: readonly DeviceChannel[] = ['status', 'telemetry', 'alert', 'ack'];

export type QoS = 0 | 1 | 2;

/** The documented QoS per channel; commands and their acknowledgements must not be lost either. */
export const CHANNEL_QOS: Record<DeviceChannel, QoS> = {
  status: 0,
  telemetry: 1,
  alert: 2,
  ack: 1,
  cmd: 1,
};

/**
 * Channels a subscriber must take at the channel's own QoS. MQTT 3.1.1 lets a broker grant no more
 * than a subscription asks for, so a subscription that could match one of these and asks for less
 * is refused (0x80) rather than granted: an alert never travels at QoS 0 or 1.
 */
export const FULL_QOS_CHANNELS: ReadonlySet<DeviceChannel> = new Set(['alert']);

/** Status is kept by the broker (retained), so a board that opens sees every device at once. */
export const RETAINED_CHANNELS: ReadonlySet<DeviceChannel> = new Set(['status']);

export interface DeviceTopic {
  prefix: string;
  deviceType: DeviceType;
  locationId: string;
  deviceId: string;
  channel: DeviceChannel;
}

// A topic level must not contain the separators or wildcards, nor be empty.
const LEVEL = /^[^/+#\s]{1,128}$/;

function level(value: string, name: string): string {
  if (!LEVEL.test(value)) throw new RangeError(`${name} is not a valid topic level: "${value}"`);
  return value;
}

export function deviceTopic(topic: Omit<DeviceTopic, 'prefix'> & { prefix?: string }): string {
  return [
    level(topic.prefix ?? DEFAULT_TOPIC_PREFIX, 'prefix'),
    level(topic.deviceType, 'device type'),
    level(topic.locationId, 'location id'),
    level(topic.deviceId, 'device id'),
    level(topic.channel, 'channel'),
  ].join('/');
}

/** The topic's parts, or undefined when it is not a device topic under `prefix`. */
export function parseDeviceTopic(topic: string, prefix = DEFAULT_TOPIC_PREFIX): DeviceTopic | undefined {
  const parts = topic.split('/');
  if (parts.length !== 5 || parts[0] !== prefix) return undefined;
  const [, deviceType, locationId, deviceId, channel] = parts as [string, string, string, string, string];
  if (!(DEVICE_TYPES as readonly string[]).includes(deviceType)) return undefined;
  if (!(DEVICE_CHANNELS as readonly string[]).includes(channel)) return undefined;
  if (![locationId, deviceId].every((part) => LEVEL.test(part))) return undefined;
  return {
    prefix,
    deviceType: deviceType as DeviceType,
    locationId,
    deviceId,
    channel: channel as DeviceChannel,
  };
}

/**
 * Whether `filter` can match some device topic of `channel` under `prefix` (any device, any store):
 * `#`, `<prefix>/+/+/+/+` and `<prefix>/sensor/<location>/+/alert` can all match an alert.
 */
export function filterMatchesChannel(filter: string, channel: DeviceChannel, prefix = DEFAULT_TOPIC_PREFIX) {
  const levels = filter.split('/');
  const accepts = [
    (level: string) => level === prefix,
    (level: string) => (DEVICE_TYPES as readonly string[]).includes(level),
    (level: string) => LEVEL.test(level),
    (level: string) => LEVEL.test(level),
    (level: string) => level === channel,
  ];
  for (let i = 0; i < levels.length; i += 1) {
    const level = levels[i]!;
    if (level === '#') return true;
    const accept = accepts[i];
    if (!accept) return false;
    if (level !== '+' && !accept(level)) return false;
  }
  return levels.length === accepts.length;
}

/** Every device's status at a store: the device board's subscription. */
export const storeStatusFilter = (locationId: string, prefix = DEFAULT_TOPIC_PREFIX) =>
  `${level(prefix, 'prefix')}/+/${level(locationId, 'location id')}/+/status`;

/** One channel of every device at a store (staff screens read alerts and telemetry this way). */
export const storeChannelFilter = (
  locationId: string,
  channel: DeviceChannel,
  prefix = DEFAULT_TOPIC_PREFIX,
) => `${level(prefix, 'prefix')}/+/${level(locationId, 'location id')}/+/${level(channel, 'channel')}`;

/** Fleet link: the cloud commands an appliance on `cmd`; the appliance answers on the others. */
export const FLEET_CHANNELS = ['cmd', 'ack', 'status', 'telemetry', 'alert'] as const;
export type FleetChannel = (typeof FLEET_CHANNELS)[number];

export function fleetTopic(
  tenantId: string,
  applianceId: string,
  channel: FleetChannel,
  prefix = DEFAULT_TOPIC_PREFIX,
) {
  return [
    level(prefix, 'prefix'),
    'fleet',
    level(tenantId, 'tenant id'),
    level(applianceId, 'appliance id'),
    level(channel, 'channel'),
  ].join('/');
}

/** What the cloud subscribes to: every appliance's answers of one channel. */
export const fleetFilter = (channel: Exclude<FleetChannel, 'cmd'>, prefix = DEFAULT_TOPIC_PREFIX) =>
  `${level(prefix, 'prefix')}/fleet/+/+/${channel}`;

export function parseFleetTopic(topic: string, prefix = DEFAULT_TOPIC_PREFIX) {
  const parts = topic.split('/');
  if (parts.length !== 5 || parts[0] !== prefix || parts[1] !== 'fleet') return undefined;
  const [, , tenantId, applianceId, channel] = parts as [string, string, string, string, string];
  if (!(FLEET_CHANNELS as readonly string[]).includes(channel)) return undefined;
  if (![tenantId, applianceId].every((part) => LEVEL.test(part))) return undefined;
  return { prefix, tenantId, applianceId, channel: channel as FleetChannel };
}

/**
 * MQTT filter matching (`+` one level, `#` the rest), for ACL checks of subscriptions:
 * a filter is allowed only when every topic it can match is allowed.
 */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i += 1) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}
