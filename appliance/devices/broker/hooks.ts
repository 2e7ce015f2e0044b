/**
 * The broker's gatekeeping, as aedes hooks: who a connection is (certificate, token, or the plain
 * TCP developer), whether it may connect, and what it may publish, subscribe to and receive.
 * Every refusal is logged with the client id, the topic and the reason.
 */
import type { AedesOptions, AedesPublishPacket, Client, PublishPacket, Subscription } from 'aedes';
import type { Logger } from 'pino';
import { parseDeviceTopic, RETAINED_CHANNELS } from '../../../shared/mqtt/topics.ts';
import { type BrokerPrincipal, canPublish, canSubscribe, readableBy } from './acl.ts';
import type { CertificateIdentity } from './identity.ts';
import { requiredSubscriptionQos } from './qos-policy.ts';

export type Transport = 'tcp' | 'tls' | 'websocket';

/** What the broker knows of one connection, from its transport up to its last denial. */
export interface Session {
  transport: Transport;
  certificate?: CertificateIdentity | undefined;
  connect?: { clientId: string; clean: boolean; protocolVersion: number };
  principal?: BrokerPrincipal;
  /** What the principal may read, set with it: checked for every message delivered. */
  readable?: (topic: string) => boolean;
  denials: number;
}

export interface HookContext {
  locationId: string;
  prefix: string;
  log: Logger;
  sessions: WeakMap<Client, Session>;
  /** Publishes acknowledged but not routed (MQTT 3.1.1 has no way to refuse one). */
  dropped: WeakSet<object>;
  verifyToken?: ((token: string) => Promise<BrokerPrincipal | undefined>) | undefined;
  isRevoked?: ((serialHex: string) => boolean) | undefined;
}

/** Denied publishes are dropped (and acknowledged) this many times, then the client is cut. */
export const DENIALS_BEFORE_DISCONNECT = 3;

type ReturnCode = 2 | 3 | 4 | 5;
class Refusal extends Error {
  constructor(
    readonly returnCode: ReturnCode,
    message: string,
  ) {
    super(message);
  }
}

async function identify(ctx: HookContext, session: Session, password: Buffer | undefined) {
  if (session.transport === 'tcp') return { kind: 'developer' } as const;
  if (session.transport === 'tls') {
    const identity = session.certificate;
    if (!identity?.ok) throw new Refusal(5, `certificate names no identity: ${identity?.reason ?? 'none'}`);
    if (ctx.isRevoked?.(identity.serial)) throw new Refusal(5, `certificate ${identity.serial} is revoked`);
    return identity.principal;
  }
  const token = password?.toString('utf8');
  if (!token || !ctx.verifyToken) throw new Refusal(4, 'a bearer token is required as the password');
  const principal = await ctx.verifyToken(token).catch(() => undefined);
  if (!principal) throw new Refusal(4, 'token refused');
  return principal;
}

/**
 * A device's client id is its device id, so nobody else can take over its session (a CONNECT
 * with the same id closes the older connection). Staff ids are theirs alone for the same reason:
 * `<user_id>` or `<user_id>:<anything>`, or one the broker assigns (an empty id, clean session).
 */
function checkClientId(principal: BrokerPrincipal, clientId: string, session: Session) {
  if (principal.kind === 'device' && clientId !== principal.deviceId)
    throw new Refusal(2, 'the client id must be the device id');
  const assigned = session.connect?.clientId === '';
  if (principal.kind === 'staff' && !assigned) {
    if (clientId !== principal.userId && !clientId.startsWith(`${principal.userId}:`))
      throw new Refusal(2, 'a staff client id must be <user_id> or <user_id>:<screen>');
  }
}

async function admit(ctx: HookContext, client: Client, password: Buffer | undefined) {
  const session = ctx.sessions.get(client);
  if (!session) throw new Refusal(3, 'unknown transport');
  const connect = session.connect;
  // MQTT-3.1.3-8: a server-assigned id cannot carry a session over, so it needs clean session.
  if (connect && connect.clientId === '' && !connect.clean && connect.protocolVersion < 5)
    throw new Refusal(2, 'an empty client id requires a clean session');
  const principal = await identify(ctx, session, password);
  if (principal.kind !== 'developer' && principal.locationId !== ctx.locationId)
    throw new Refusal(5, 'this identity belongs to another store');
  checkClientId(principal, client.id, session);
  session.principal = principal;
  session.readable = readableBy(principal, ctx.prefix);
  return { session, principal };
}

/** A will left by the broker's last run has no client: only a device's own topic passes. */
function orphanWillAllowed(ctx: HookContext, packet: PublishPacket & { clientId?: string }) {
  const parsed = parseDeviceTopic(packet.topic, ctx.prefix);
  return (
    parsed?.locationId === ctx.locationId && parsed.deviceId === packet.clientId && parsed.channel !== 'cmd'
  );
}

/**
 * The parser hands a payload as a view into the chunk read from the socket (16 KB and more):
 * a message kept a while (in flight to a subscriber, queued) would keep the whole chunk alive,
 * long enough for V8 to move it out of the young generation, where it lingers until a full
 * collection. A copy of a small payload costs less than that.
 */
export const ownPayload = (payload: Buffer | string) =>
  typeof payload === 'string' || payload.buffer.byteLength <= payload.length * 2
    ? payload
    : Buffer.from(payload);

export function createBrokerHooks(ctx: HookContext): AedesOptions {
  const { log, sessions, prefix } = ctx;

  const preConnect: AedesOptions['preConnect'] = (client, packet, done) => {
    const session = sessions.get(client);
    if (!session) return done(new Error('connection from an unknown transport'), false);
    session.connect = {
      clientId: packet.clientId,
      clean: packet.clean !== false,
      protocolVersion: packet.protocolVersion ?? 4,
    };
    done(null, true);
  };

  const authenticate: AedesOptions['authenticate'] = (client, _username, password, done) => {
    admit(ctx, client, password).then(
      ({ session, principal }) => {
        const fields = { clientId: client.id, transport: session.transport, principal };
        if (principal.kind === 'developer')
          log.info(fields, 'developer client connected: no identity, no ACL');
        else log.info(fields, 'client connected');
        done(null, true);
      },
      (error: Error) => {
        const returnCode = error instanceof Refusal ? error.returnCode : 3;
        const transport = sessions.get(client)?.transport;
        log.warn({ clientId: client.id, transport, returnCode, reason: error.message }, 'connection refused');
        done(Object.assign(new Error(error.message), { returnCode }), false);
      },
    );
  };

  const authorizePublish: AedesOptions['authorizePublish'] = (client, packet, done) => {
    const session = client ? sessions.get(client) : undefined;
    const principal = session?.principal;
    if (!client || !session || !principal) {
      if (!orphanWillAllowed(ctx, packet)) {
        log.warn(
          { clientId: client?.id ?? null, topic: packet.topic },
          'will from an unknown client dropped',
        );
        ctx.dropped.add(packet);
      }
      return done(null);
    }
    const decision = canPublish(principal, packet.topic, prefix);
    if (decision.allowed) {
      // The device board reads the last status of every device, whatever retain flag it was sent with.
      const channel = parseDeviceTopic(packet.topic, prefix)?.channel;
      if (channel && RETAINED_CHANNELS.has(channel)) packet.retain = true;
      packet.payload = ownPayload(packet.payload);
      return done(null);
    }
    session.denials += 1;
    const fields = {
      clientId: client.id,
      topic: packet.topic,
      reason: decision.reason,
      denials: session.denials,
    };
    if (session.denials >= DENIALS_BEFORE_DISCONNECT) {
      log.warn(fields, 'publish denied; disconnecting after repeated denials');
      return done(new Error(`publish denied: ${decision.reason}`));
    }
    log.warn(fields, 'publish denied; dropped');
    ctx.dropped.add(packet);
    done(null);
  };

  const authorizeSubscribe: AedesOptions['authorizeSubscribe'] = (client, sub: Subscription, done) => {
    const principal = sessions.get(client)?.principal;
    const decision = principal
      ? canSubscribe(principal, sub.topic, prefix)
      : { allowed: false, reason: 'unknown' };
    const required = requiredSubscriptionQos(sub.topic, prefix);
    if (decision.allowed && sub.qos >= required) return done(null, sub);
    let reason = `it can match alerts, delivered at QoS ${required} only; asked for ${sub.qos}`;
    if (!decision.allowed) reason = 'reason' in decision ? decision.reason : 'denied';
    log.warn({ clientId: client.id, topic: sub.topic, reason }, 'subscribe denied');
    done(null, null); // SUBACK 0x80 for this filter
  };

  const authorizeForward: AedesOptions['authorizeForward'] = (client, packet: AedesPublishPacket) => {
    if (sessions.get(client)?.readable?.(packet.topic)) return packet;
    log.warn({ clientId: client.id, topic: packet.topic }, 'delivery withheld: not readable by this client');
    return null;
  };

  return { preConnect, authenticate, authorizePublish, authorizeSubscribe, authorizeForward };
}
