/**
 * The fleet link at work: the embedded broker (when no broker URL is given) admitting appliances by
 * their sync credential and devices by certificates of the device CA, the device registry's
 * commands dispatched over the link, sync triggers and certificate revocations pushed to the
 * stores, and the appliances' answers marking commands done.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import {
  createCloudFleetLink,
  type FleetBroker,
  type FleetConfig,
  startFleetBroker,
} from '../fleet/index.ts';
import type { CloudServices } from '../services.ts';
import { type CommandDispatch, createCommandDispatch } from './fleet-commands.ts';
import { createRevocationPush, type RevocationPush } from './push-revocations.ts';

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
