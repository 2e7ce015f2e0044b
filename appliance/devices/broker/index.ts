/**
 * The store's MQTT broker (Aedes) for kitchen screens, printers, sensors and cameras: TLS with
 * client certificates of the device CA, plain TCP for development, MQTT over WebSocket through the
 * local API for browser screens; per-identity ACL on the topics of shared/mqtt/topics.ts; sessions
 * and QoS 1/2 messages on disk; slow clients cut before they can stall the others; what each
 * connection hands over at once bounded, so a busy broker's messages die young (intake.ts), and
 * held back while a subscriber that drains is behind (backpressure.ts); a connection's packets of
 * one turn written to its socket at once (outbound.ts); MQTT 3.1.1's input rules and a maximum
 * packet size enforced on the bytes before aedes parses them (input-guard.ts); device topics
 * routed at their channel's QoS (qos-policy.ts).
 */
import type { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { Aedes, type Client, type PublishPacket } from 'aedes';
import type { Logger } from 'pino';
import { createWebSocketStream, type WebSocket } from 'ws';
import { DEFAULT_TOPIC_PREFIX, type DeviceType } from '../../../shared/mqtt/topics.ts';
import type { BrokerPrincipal } from './acl.ts';
import { createBackpressure, DEFAULT_CONGESTED_BYTES, DEFAULT_STALL_MS } from './backpressure.ts';
import { guardDelivery } from './delivery.ts';
import { createBrokerHooks, type Session, type Transport } from './hooks.ts';
import { identityFromCertificate } from './identity.ts';
import { DEFAULT_MAX_PACKET_BYTES, guardInput } from './input-guard.ts';
import { boundIntake } from './intake.ts';
import { type Listener, listenTcp, listenTls, type TlsListener, type TlsMaterial } from './listeners.ts';
import { coalesceWrites } from './outbound.ts';
import { createSqlitePersistence } from './persistence.ts';
import { createQosPolicy, type QosPolicy } from './qos-policy.ts';

export { canPublish, canRead, canSubscribe, filterCovers, staffReadFilters } from './acl.ts';
export { deviceUrn, identityFromCertificate, staffUrn } from './identity.ts';
export { DEFAULT_MAX_PACKET_BYTES } from './input-guard.ts';
export type { BrokerPrincipal, DeviceType };

export interface BrokerOptions {
  locationId: string;
  topicPrefix?: string;
  /** Persistent sessions, QoS 1/2 messages and retained messages live here (mqtt.sqlite). */
  dataDir: string;
  /** Plain TCP: development only, no client certificates, no ACL; keep it on loopback. */
  tcp?: { port: number; host: string } | undefined;
  /** Client certificates required (requestCert + rejectUnauthorized), issued by `ca`. */
  tls?:
    | {
        port: number;
        host: string;
        key: string | Buffer;
        cert: string | Buffer;
        ca: string | Buffer;
        crl?: string | Buffer;
      }
    | undefined;
  /** Checks a bearer token for MQTT over WebSocket; answers who it is, or undefined. */
  verifyToken?: (token: string) => Promise<BrokerPrincipal | undefined>;
  /** Certificate serials (hex, lower-case, no leading zeros) refused at connect even if the chain is valid. */
  isRevoked?: (serialHex: string) => boolean;
  log: Logger;
  /** Packets a client may have waiting past its socket's high-water mark before it is cut. */
  maxQueuedPerClient?: number;
  /** A client whose socket does not drain for this long is cut. */
  drainTimeoutMs?: number;
  /** The largest packet a client may send, fixed header included (DEFAULT_MAX_PACKET_BYTES). */
  maxPacketBytes?: number | undefined;
}

export interface ApplianceBroker {
  aedes: Aedes;
  /** Actual ports (an option of 0 picks a free one); undefined when that listener is off. */
  tcpPort: number | undefined;
  tlsPort: number | undefined;
  /** Upgrades a WebSocket (from the local API, path /mqtt) into an MQTT connection. */
  handleWebSocket(socket: WebSocket, request: IncomingMessage): void;
  /**
   * The TLS listener's key, certificate and CA from now on (a renewed certificate): new
   * connections get them, connected devices keep their sessions. Nothing when TLS is off.
   */
  renewTls(material: TlsMaterial): void;
  /**
   * Closes every open session whose client certificate `isRevoked` names (a revocation the cloud
   * pushed, or the list fetched again); answers their client ids. They are refused on return.
   */
  disconnectRevoked(isRevoked: (serialHex: string) => boolean): string[];
  close(): Promise<void>;
}

/** Bytes a client may have unread in its connection's buffer before it is cut. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/**
 * Bytes unread past which QoS 0 messages to a client are dropped: some 3,000 of 300 bytes, a
 * second of a busy store's traffic, so a screen that keeps up never loses one.
 */
const QOS0_DROP_BYTES = 1024 * 1024;

interface PublishInternals {
  publish(packet: PublishPacket, client: unknown, done?: (error?: Error | null) => void): void;
}

/**
 * A denied publish is acknowledged (MQTT 3.1.1 has no refusal for it) but never routed: no
 * subscriber, retained store or offline queue sees it. The others are routed at their channel's QoS.
 */
function skipDropped(aedes: Aedes, dropped: WeakSet<object>, qos: QosPolicy) {
  const inner = aedes as unknown as PublishInternals;
  const publish = inner.publish.bind(aedes);
  inner.publish = (packet, client, done) => {
    const callback = typeof client === 'function' ? (client as (error?: Error | null) => void) : done;
    if (dropped.has(packet)) return callback?.(null);
    const publisher = typeof client === 'function' ? null : (client as Client | null | undefined);
    publish(qos.routed(packet, publisher), client, done);
  };
}

function logEvents(aedes: Aedes, log: Logger) {
  aedes.on('clientDisconnect', (client) => log.info({ clientId: client.id }, 'client disconnected'));
  aedes.on('keepaliveTimeout', (client) => log.warn({ clientId: client.id }, 'keepalive timed out'));
  // A connection cut with writes queued reports one error per queued write: once is enough.
  const reported = new WeakSet<object>();
  aedes.on('clientError', (client, error) => {
    if (reported.has(client)) return;
    reported.add(client);
    log.warn({ clientId: client.id, reason: error.message }, 'client error; connection closed');
  });
  aedes.on('connectionError', (_client, error) =>
    log.warn({ reason: error.message }, 'connection failed before CONNECT completed'),
  );
  // aedes reports persistence trouble here; unheard, an 'error' event would end the process.
  (aedes as EventEmitter).on('error', (error: Error) => log.error({ err: error }, 'broker error'));
}

/** The serial of a TLS client's certificate, when it is revoked. */
function revokedSerial(session: Session | undefined, isRevoked: (serialHex: string) => boolean) {
  const certificate = session?.certificate;
  return certificate?.ok && isRevoked(certificate.serial) ? certificate.serial : undefined;
}

export async function startBroker(options: BrokerOptions): Promise<ApplianceBroker> {
  const log = options.log.child({ module: 'broker' });
  const sessions = new WeakMap<Client, Session>();
  const dropped = new WeakSet<object>();
  const persistence = createSqlitePersistence(options.dataDir);
  const drainTimeout = options.drainTimeoutMs ?? 10_000;
  const maxPacketBytes = options.maxPacketBytes ?? DEFAULT_MAX_PACKET_BYTES;
  const backpressure = createBackpressure({
    congestedBytes: DEFAULT_CONGESTED_BYTES,
    stallMs: DEFAULT_STALL_MS,
  });
  const aedes = await Aedes.createBroker({
    persistence,
    drainTimeout,
    connectTimeout: 10_000,
    // Device ids are UUIDs and longer; MQTT 3.1's limit of 23 is not ours.
    maxClientsIdLength: 128,
    queueLimit: 100,
    ...createBrokerHooks({
      locationId: options.locationId,
      prefix: options.topicPrefix ?? DEFAULT_TOPIC_PREFIX,
      log,
      sessions,
      dropped,
      verifyToken: options.verifyToken,
      isRevoked: options.isRevoked,
    }),
  });
  skipDropped(aedes, dropped, createQosPolicy(options.topicPrefix ?? DEFAULT_TOPIC_PREFIX, log));
  logEvents(aedes, log);
  const closeIfRevoked = (client: Client, isRevoked: (serialHex: string) => boolean) => {
    const serial = revokedSerial(sessions.get(client), isRevoked);
    if (!serial) return false;
    log.warn({ clientId: client.id, serial }, 'session closed: its certificate was revoked');
    client.close();
    return true;
  };
  // Admitted just before its revocation was learned, a client registers after the cut went by.
  const { isRevoked } = options;
  if (isRevoked) aedes.on('client', (client) => closeIfRevoked(client, isRevoked));

  const attach = (
    conn: Duplex,
    transport: Transport,
    extra: Partial<Session> = {},
    req?: IncomingMessage,
  ) => {
    const client = aedes.handle(conn, req);
    guardInput(conn, {
      maxPacketBytes,
      onViolation: ({ rule, reason, connack }) =>
        log.warn(
          { clientId: client.id, transport, rule, reason, returnCode: connack ?? null },
          'protocol violation; connection closed',
        ),
    });
    boundIntake(conn, client, backpressure);
    coalesceWrites(conn);
    backpressure.watch(conn);
    sessions.set(client, { transport, denials: 0, ...extra });
    guardDelivery(client, {
      maxQueued: options.maxQueuedPerClient ?? 1000,
      maxQueuedBytes: MAX_QUEUED_BYTES,
      qos0DropBytes: QOS0_DROP_BYTES,
      onQos0Drops: (dropped) =>
        log.warn({ clientId: client.id, dropped }, 'QoS 0 messages dropped: the client fell behind'),
      onCut: (reason) => log.warn({ clientId: client.id, reason }, 'slow subscriber disconnected'),
    });
  };

  const listeners: Listener[] = [];
  const closeAll = async () => {
    await Promise.all(listeners.map((listener) => listener.close()));
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
    await persistence.destroy();
  };
  let tcpPort: number | undefined;
  let tlsListener: TlsListener | undefined;
  try {
    if (options.tcp) {
      const tcp = await listenTcp(options.tcp.host, options.tcp.port, (socket) => attach(socket, 'tcp'));
      listeners.push(tcp);
      tcpPort = tcp.port;
      log.warn(
        { tcpHost: options.tcp.host, tcpPort },
        'development MQTT listener (plain TCP) bound: no identity, no ACL; anyone who reaches the address may read and publish every topic',
      );
    }
    if (options.tls) {
      const onSocket = (socket: TLSSocket) =>
        attach(socket, 'tls', { certificate: identityFromCertificate(socket.getPeerCertificate()) });
      tlsListener = await listenTls(options.tls.host, options.tls.port, options.tls, log, onSocket);
      listeners.push(tlsListener);
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  const tlsPort = tlsListener?.port;
  log.info({ tcpPort, tlsPort, maxPacketBytes, dataDir: options.dataDir }, 'broker started');

  let closing: Promise<void> | undefined;
  return {
    aedes,
    tcpPort,
    tlsPort,
    handleWebSocket(socket, request) {
      attach(createWebSocketStream(socket), 'websocket', {}, request);
    },
    renewTls(material) {
      if (!tlsListener) return;
      tlsListener.renew(material);
      log.info('TLS listener renewed: new connections get the new certificate');
    },
    disconnectRevoked(isRevoked) {
      const { clients } = aedes as unknown as { clients: Record<string, Client> };
      return Object.values(clients)
        .filter((client) => closeIfRevoked(client, isRevoked))
        .map((client) => client.id);
    },
    close() {
      closing ??= closeAll();
      return closing;
    },
  };
}
