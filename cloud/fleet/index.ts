/**
 * The fleet link (issue 6): the cloud's MQTT connection to every appliance, through the embedded
 * broker or any broker by URL, carrying the device registry's commands and revoked device
 * certificates, and hearing the answers.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import {
  type CommandDispatch,
  createCommandDispatch,
  createRevocationPush,
  type RevocationPush,
} from '../flows/index.ts';
import type { CloudServices } from '../services.ts';
import { type FleetBroker, startFleetBroker } from './broker.ts';
import { createCloudFleetLink } from './link.ts';

export interface FleetConfig {
  /** Any MQTT broker; unset starts the embedded one on `port`. */
  url: string | undefined;
  username: string | undefined;
  password: string | undefined;
  port: number;
  /** The embedded broker's TLS listener, where appliances show their certificates. */
  tlsPort: number;
  /** Names in its server certificate (from the device CA): how appliances reach it. */
  tlsHosts: { dns: string[]; ip: string[] };
  host: string;
  prefix: string;
  dispatchMs: number;
}

export async function startFleet(
  config: FleetConfig,
  deps: { services: CloudServices; clock: Clock; newId: IdGenerator; log: Logger },
) {
  const log = deps.log.child({ module: 'fleet' });
  let broker: FleetBroker | undefined;
  let connection = { url: config.url ?? '', username: config.username, password: config.password };
  if (!config.url) {
    const devices = deps.services.devices;
    // A key made now, never stored: each start of the broker gets a fresh certificate from the CA.
    const serverCertificate = await devices.serverCertificate(config.tlsHosts);
    broker = await startFleetBroker({
      port: config.port,
      host: config.host,
      prefix: config.prefix,
      log,
      // An appliance signs in with the credential it syncs with.
      authenticateAppliance: async (credential) => {
        const identity = await deps.services.sync.authenticate(credential);
        return identity && { tenantId: identity.tenantId, applianceId: identity.applianceId };
      },
      tls: {
        port: config.tlsPort,
        ...serverCertificate,
        certificateValid: (identity) =>
          devices.certificateValid(identity.tenantId, identity.deviceId, identity.serial),
      },
    });
    connection = { url: broker.url, ...broker.cloudCredentials };
  }
  let dispatch: CommandDispatch | undefined;
  let revocations: RevocationPush | undefined;
  const link = createCloudFleetLink({
    ...connection,
    prefix: config.prefix,
    log,
    onAck: async (tenantId, applianceId, ack) => {
      if (!revocations!.onAck(tenantId, applianceId, ack)) await dispatch!.onAck(tenantId, applianceId, ack);
    },
    onStatus: (tenantId, applianceId, status) => dispatch!.onStatus(tenantId, applianceId, status),
  });
  dispatch = createCommandDispatch({
    services: deps.services,
    link,
    clock: deps.clock,
    newId: deps.newId,
    log,
  });
  revocations = createRevocationPush({
    services: deps.services,
    link,
    clock: deps.clock,
    newId: deps.newId,
    log,
  });
  await link.start();
  const stopRevocations = deps.services.devices.onCertificatesRevoked((notice) => {
    revocations!
      .push(notice)
      .catch((error: unknown) =>
        log.warn(
          { err: error, tenantId: notice.tenantId },
          'revocation not pushed; the appliances poll for it',
        ),
      );
  });
  const stopListening = deps.services.sync.onTrigger((tenantId, locationId, priority) => {
    dispatch!
      .onSyncTrigger(tenantId, locationId, priority)
      .catch((error: unknown) =>
        log.warn({ err: error, locationId }, 'sync trigger not sent over the fleet link'),
      );
  });
  const timer = setInterval(() => {
    dispatch!.tick().catch((error: unknown) => log.error({ err: error }, 'fleet dispatch failed'));
  }, config.dispatchMs);
  timer.unref();
  log.info({ url: connection.url, embedded: broker !== undefined }, 'fleet link up');
  return {
    url: connection.url,
    /** The embedded broker's TLS listener (certificates of the device CA), if it runs. */
    tlsUrl: broker?.tlsUrl,
    dispatch,
    revocations,
    async close() {
      clearInterval(timer);
      stopListening();
      stopRevocations();
      await link.close();
      await broker?.close();
    },
  };
}

export type Fleet = Awaited<ReturnType<typeof startFleet>>;
export type { CloudFleetLink } from './link.ts';
