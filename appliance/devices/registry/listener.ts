/**
 * Feeds the registry from the broker's events. A device is known by its certificate when it
 * connects over TLS, and otherwise (the plain TCP developer listener) by the topics it publishes
 * on: its client id is its device id, which the broker enforces for certificates. Connecting and
 * publishing as itself make a device online; a disconnect, a keepalive time-out or its will
 * (`status` with `online: false`) make it offline.
 */
import type { Aedes, AedesPublishPacket, Client } from 'aedes';
import type { Logger } from 'pino';
import type { PeerCertificateLike } from '../../../shared/devices/identity.ts';
import { parseDeviceTopic } from '../../../shared/mqtt/topics.ts';
import { identityFromCertificate } from '../broker/identity.ts';
import type { DeviceCommands } from './commands.ts';
import type { DeviceRef, DeviceRegistry } from './service.ts';

/** Larger payloads are not a device's status, telemetry or alert; they are logged and skipped. */
const MAX_PAYLOAD_BYTES = 16 * 1024;

export interface RegistryListenerOptions {
  aedes: Aedes;
  registry: DeviceRegistry;
  commands?: DeviceCommands | undefined;
  prefix: string;
  locationId: string;
  log: Logger;
}

function certificateDevice(client: Client): DeviceRef | undefined {
  const conn = client.conn as unknown as { getPeerCertificate?: () => PeerCertificateLike };
  if (typeof conn.getPeerCertificate !== 'function') return undefined;
  const identity = identityFromCertificate(conn.getPeerCertificate());
  if (!identity.ok || identity.principal.kind !== 'device') return undefined;
  return { deviceId: identity.principal.deviceId, deviceType: identity.principal.deviceType };
}

function readObject(payload: Buffer | string): Record<string, unknown> | undefined {
  if (payload.length > MAX_PAYLOAD_BYTES) return undefined;
  try {
    const value: unknown = JSON.parse(payload.toString());
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Telemetry is `{ metrics: {...} }` or the metrics themselves, beside an optional `at`. */
function metricsOf(message: Record<string, unknown>) {
  const nested = message.metrics;
  if (nested !== null && typeof nested === 'object' && !Array.isArray(nested))
    return nested as Record<string, unknown>;
  const { at: _at, ...metrics } = message;
  return metrics;
}

export function attachDeviceRegistry(options: RegistryListenerOptions) {
  const { aedes, registry, prefix, locationId, log } = options;
  // The connection that speaks for each device now: a late disconnect of a connection the
  // device already replaced must not make it offline.
  const live = new Map<string, Client>();

  function online(client: Client, ref: DeviceRef) {
    if (live.get(ref.deviceId) === client) return;
    live.set(ref.deviceId, client);
    registry.connected(ref);
  }

  function gone(client: Client, why: string) {
    const deviceId = client.id;
    if (live.get(deviceId) !== client) return;
    live.delete(deviceId);
    registry.disconnected(deviceId);
    log.info({ deviceId, why }, 'device offline');
  }

  const onClient = (client: Client) => {
    const ref = certificateDevice(client);
    if (ref) return online(client, ref);
    const known = registry.device(client.id);
    if (known) online(client, { deviceId: known.id, deviceType: known.device_type });
  };
  const onDisconnect = (client: Client) => gone(client, 'disconnected');
  const onKeepalive = (client: Client) => gone(client, 'keepalive timed out');

  function onPublish(packet: AedesPublishPacket, client: Client | null) {
    const topic = parseDeviceTopic(packet.topic, prefix);
    if (!topic || topic.locationId !== locationId || topic.channel === 'cmd') return;
    const ref = { deviceId: topic.deviceId, deviceType: topic.deviceType };
    const message = readObject(packet.payload);
    if (!message) {
      log.warn(
        { topic: packet.topic, size: packet.payload.length },
        'device message skipped: not a JSON object',
      );
      return;
    }
    const fromDevice = client !== null && client.id === ref.deviceId && !client.closed;
    if (topic.channel === 'status') {
      registry.reported(ref, message);
      if (message.online === false) live.delete(ref.deviceId);
      else if (fromDevice) live.set(ref.deviceId, client);
      return;
    }
    if (fromDevice) online(client, ref);
    if (topic.channel === 'telemetry') registry.telemetry(ref, metricsOf(message));
    else if (topic.channel === 'alert') registry.deviceAlert(ref, message);
    else {
      registry.sighted(ref);
      options.commands?.onAck(ref.deviceId, message);
    }
  }

  const guarded =
    <A extends unknown[]>(what: string, handler: (...args: A) => void) =>
    (...args: A) => {
      try {
        handler(...args);
      } catch (error) {
        // A broken message or a busy store must never take the broker down with it.
        log.error({ err: error, what }, 'device registry could not record a broker event');
      }
    };
  const handlers = {
    client: guarded('client', onClient),
    clientDisconnect: guarded('clientDisconnect', onDisconnect),
    keepaliveTimeout: guarded('keepaliveTimeout', onKeepalive),
    publish: guarded('publish', onPublish),
  };
  aedes.on('client', handlers.client);
  aedes.on('clientDisconnect', handlers.clientDisconnect);
  aedes.on('keepaliveTimeout', handlers.keepaliveTimeout);
  aedes.on('publish', handlers.publish);
  return () => {
    aedes.off('client', handlers.client);
    aedes.off('clientDisconnect', handlers.clientDisconnect);
    aedes.off('keepaliveTimeout', handlers.keepaliveTimeout);
    aedes.off('publish', handlers.publish);
  };
}
