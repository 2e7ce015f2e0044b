import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { createServer as createTlsServer, TLSSocket } from 'node:tls';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import type { Logger } from 'pino';
import { type DeviceIdentity, deviceOfCertificate } from '../../shared/devices/identity.ts';
import { parseFleetTopic, topicMatches } from '../../shared/mqtt/topics.ts';

/** Who is on the fleet broker: the cloud itself, or one appliance of one tenant. */
type Principal = { kind: 'cloud' } | { kind: 'appliance'; tenantId: string; applianceId: string };

export interface FleetBrokerOptions {
  port: number;
  host: string;
  prefix: string;
  /** An appliance signs in with its id as user name and its credential as password. */
  authenticateAppliance(credential: string): Promise<{ tenantId: string; applianceId: string } | undefined>;
  /**
   * The TLS listener, where an appliance shows the certificate its enrolment gave it (no
   * password): the CA's signature is checked by TLS, what only the registry knows by this.
   */
  tls?:
    | {
        port: number;
        key: string;
        cert: string;
        ca: string;
        certificateValid(identity: DeviceIdentity & { serial: string }): Promise<boolean>;
      }
    | undefined;
  log: Logger;
}

const NOT_AUTHORIZED = 5;
const IDENTIFIER_REJECTED = 2;

function refusal(code: number, message: string): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError;
}

/**
 * The embedded broker of the fleet link (the default; production may point the cloud and its
 * appliances at any MQTT broker instead). Appliances may only read their own command topic and
 * write their own answers; only the cloud's own client, holding a secret made at start, may command.
 */
export async function startFleetBroker(options: FleetBrokerOptions) {
  const { prefix, log } = options;
  const cloudSecret = randomBytes(24).toString('base64url');
  const principals = new WeakMap<Client, Principal>();

  const own = (principal: Principal, topic: string, channels: readonly string[]) => {
    if (principal.kind === 'cloud') return true;
    const parsed = parseFleetTopic(topic, prefix);
    return (
      parsed !== undefined &&
      parsed.tenantId === principal.tenantId &&
      parsed.applianceId === principal.applianceId &&
      channels.includes(parsed.channel)
    );
  };

  /** An appliance on the TLS listener is who its verified certificate says, if the registry agrees. */
  function authenticateByCertificate(
    client: Client,
    socket: TLSSocket,
    done: (error: AuthenticateError | null, ok: boolean) => void,
  ) {
    const identity = socket.authorized ? deviceOfCertificate(socket.getPeerCertificate()) : undefined;
    if (identity?.deviceType !== 'appliance')
      return done(refusal(NOT_AUTHORIZED, 'not an appliance certificate of the device CA'), false);
    if (client.id !== identity.deviceId)
      return done(refusal(IDENTIFIER_REJECTED, 'client id must be the appliance id'), false);
    options.tls!.certificateValid(identity).then(
      (valid) => {
        if (!valid) return done(refusal(NOT_AUTHORIZED, 'certificate revoked, superseded or unknown'), false);
        principals.set(client, {
          kind: 'appliance',
          tenantId: identity.tenantId,
          applianceId: identity.deviceId,
        });
        done(null, true);
      },
      () => done(refusal(3, 'authentication unavailable'), false),
    );
  }

  const aedes = await Aedes.createBroker({
    authenticate(client, username, password, done) {
      if (client.conn instanceof TLSSocket) return authenticateByCertificate(client, client.conn, done);
      const secret = password?.toString() ?? '';
      if (username === 'cloud') {
        const good =
          secret.length === cloudSecret.length &&
          timingSafeEqual(Buffer.from(secret), Buffer.from(cloudSecret));
        if (!good) return done(refusal(NOT_AUTHORIZED, 'bad cloud secret'), false);
        principals.set(client, { kind: 'cloud' });
        return done(null, true);
      }
      options.authenticateAppliance(secret).then(
        (identity) => {
          if (!identity) return done(refusal(NOT_AUTHORIZED, 'unknown appliance credential'), false);
          // The session is the appliance's: its client id is its id, so no one else resumes it.
          if (client.id !== identity.applianceId || username !== identity.applianceId)
            return done(refusal(IDENTIFIER_REJECTED, 'client id must be the appliance id'), false);
          principals.set(client, { kind: 'appliance', ...identity });
          done(null, true);
        },
        () => done(refusal(3, 'authentication unavailable'), false),
      );
    },
    authorizePublish(client, packet, callback) {
      const principal = client && principals.get(client);
      if (principal && principal.kind === 'cloud' && parseFleetTopic(packet.topic, prefix)?.channel === 'cmd')
        return callback(null);
      if (
        principal &&
        principal.kind === 'appliance' &&
        own(principal, packet.topic, ['ack', 'status', 'telemetry', 'alert'])
      )
        return callback(null);
      log.warn({ clientId: client?.id, topic: packet.topic }, 'fleet publish refused');
      callback(new Error('not allowed'));
    },
    authorizeSubscribe(client, subscription, callback) {
      const principal = principals.get(client);
      const allowed =
        principal?.kind === 'cloud'
          ? topicMatches(`${prefix}/fleet/#`, subscription.topic.replace(/[+#]/g, 'x'))
          : principal !== undefined &&
            !/[+#]/.test(subscription.topic) &&
            own(principal, subscription.topic, ['cmd']);
      if (allowed) return callback(null, subscription);
      log.warn({ clientId: client.id, filter: subscription.topic }, 'fleet subscription refused');
      callback(null, null);
    },
  });

  const listen = async (server: Server, port: number) => {
    await new Promise<void>((resolve) => server.listen(port, options.host, resolve));
    return (server.address() as AddressInfo).port;
  };
  const server: Server = createServer(aedes.handle);
  const port = await listen(server, options.port);
  const tlsServer =
    options.tls &&
    createTlsServer(
      {
        key: options.tls.key,
        cert: options.tls.cert,
        ca: options.tls.ca,
        requestCert: true,
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
      },
      aedes.handle,
    );
  const tlsPort = tlsServer ? await listen(tlsServer, options.tls!.port) : undefined;
  log.info({ port, tlsPort }, 'fleet broker listening');
  return {
    url: `mqtt://${options.host}:${port}`,
    port,
    tlsUrl: tlsPort === undefined ? undefined : `mqtts://${options.host}:${tlsPort}`,
    /** How the cloud's own client signs in. */
    cloudCredentials: { username: 'cloud', password: cloudSecret },
    async close() {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (tlsServer) await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    },
  };
}

export type FleetBroker = Awaited<ReturnType<typeof startFleetBroker>>;
