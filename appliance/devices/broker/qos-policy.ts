/**
 * The documented QoS per channel (shared/mqtt/topics.ts: alerts 2, telemetry 1, status 0, commands
 * and acknowledgements 1) is the QoS a device topic's message travels at from the broker on,
 * whatever it was published with. A publish below its channel's QoS is still accepted (MQTT
 * 3.1.1 has no way to refuse it, and an alert that arrived must not be dropped for how it was
 * sent): the publisher's own exchange follows the QoS it sent, and the broker routes, stores and
 * queues the message at the channel's. One above is routed at the channel's too, so a chatty
 * status never fills the queues of offline sessions. Each publisher that does either is logged
 * once per channel.
 *
 * A subscriber decides the QoS it receives at (the lower of the message's and its grant), and a
 * broker may grant no more than it asked for; so a subscription that could match alerts and asks
 * for less than 2 is refused (SUBACK 0x80) rather than granted at a QoS an alert must never
 * travel at. Other channels are granted as asked: a live chart may take telemetry at QoS 0.
 */
import type { AedesPublishPacket, Client, PublishPacket } from 'aedes';
import type { Logger } from 'pino';
import {
  CHANNEL_QOS,
  type DeviceChannel,
  FULL_QOS_CHANNELS,
  filterMatchesChannel,
  parseDeviceTopic,
  type QoS,
} from '../../../shared/mqtt/topics.ts';

/** The QoS a subscription to `filter` must ask for to be granted: 0 unless it can match alerts. */
export function requiredSubscriptionQos(filter: string, prefix: string): QoS {
  let required: QoS = 0;
  for (const channel of FULL_QOS_CHANNELS)
    if (filterMatchesChannel(filter, channel, prefix))
      required = Math.max(required, CHANNEL_QOS[channel]) as QoS;
  return required;
}

type Routed = PublishPacket | AedesPublishPacket;
const QOS_BY_CHANNEL = new Map<string, QoS>(Object.entries(CHANNEL_QOS));

export function createQosPolicy(prefix: string, log: Logger) {
  const told = new WeakMap<Client, Set<DeviceChannel>>();

  function tellOnce(client: Client, packet: Routed, channel: DeviceChannel) {
    const channels = told.get(client) ?? new Set<DeviceChannel>();
    if (channels.has(channel)) return;
    told.set(client, channels);
    channels.add(channel);
    log.warn(
      {
        clientId: client.id,
        topic: packet.topic,
        publishedQos: packet.qos,
        channelQos: CHANNEL_QOS[channel],
      },
      "publish at a QoS other than its channel's: routed at the channel's",
    );
  }

  return {
    /** The packet to route: `packet` itself, or a copy at its channel's QoS. */
    routed<T extends Routed>(packet: T, client: Client | null | undefined): T {
      // The last level first: a publish already at its channel's QoS (nearly all) needs no parsing.
      const last = packet.topic.slice(packet.topic.lastIndexOf('/') + 1);
      const qos = QOS_BY_CHANNEL.get(last);
      if (qos === undefined || qos === packet.qos) return packet;
      const channel = parseDeviceTopic(packet.topic, prefix)?.channel;
      if (!channel) return packet;
      if (client) tellOnce(client, packet, channel);
      return { ...packet, qos };
    },
  };
}

export type QosPolicy = ReturnType<typeof createQosPolicy>;
