/**
 * Who connects in the MQTT benchmark and how, for each broker: ten fridge sensors, each publishing
 * its own telemetry topic, and a manager's screen reading the store's telemetry. The same client
 * ids and topics go to every broker; on our TLS listener each client also presents a certificate of
 * the bench's device CA (test/support/device-certs.ts: the layout the cloud's CA issues), which
 * the broker's ACL reads.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deviceTopic, storeChannelFilter } from '../../../shared/mqtt/topics.ts';
import { createDeviceCa, type IssuedCert } from '../../../test/support/device-certs.ts';
import type { PublisherSpec, SubscriberSpec } from './protocol.ts';

export const LOCATION = '01900000-0000-7000-8000-0000000000b5';
const MANAGER = '01900000-0000-7000-8000-0000000000e1';

export interface Identities {
  publishers: Array<{ deviceId: string; topic: string; cert: IssuedCert }>;
  subscriber: { clientId: string; filter: string; cert: IssuedCert };
  ca: string;
  /** Holds ca.crt, server.crt and server.key for our broker's TLS listener. */
  certDir: string;
}

export async function createIdentities(count: number, certDir: string): Promise<Identities> {
  const ca = await createDeviceCa('Edge Bench Device CA');
  const server = await ca.server();
  await writeFile(join(certDir, 'ca.crt'), ca.cert);
  await writeFile(join(certDir, 'server.crt'), server.cert);
  await writeFile(join(certDir, 'server.key'), server.key, { mode: 0o600 });
  const publishers = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const deviceId = `bench-fridge-${String(i + 1).padStart(2, '0')}`;
      const topic = deviceTopic({
        deviceType: 'sensor',
        locationId: LOCATION,
        deviceId,
        channel: 'telemetry',
      });
      return { deviceId, topic, cert: await ca.device('sensor', LOCATION, deviceId) };
    }),
  );
  const subscriber = {
    clientId: `${MANAGER}:bench-board`,
    filter: storeChannelFilter(LOCATION, 'telemetry'),
    cert: await ca.staff(MANAGER, ['manager'], LOCATION),
  };
  return { publishers, subscriber, ca: ca.cert, certDir };
}

/** The clients' specs for a broker at `url`; with `tls`, each with its own certificate. */
export function clientSpecs(identities: Identities, url: string, tls: boolean) {
  const material = (cert: IssuedCert) =>
    tls ? { ca: identities.ca, cert: cert.cert, key: cert.key } : undefined;
  const publishers: PublisherSpec[] = identities.publishers.map(({ deviceId, topic, cert }) => ({
    url,
    clientId: deviceId,
    topic,
    tls: material(cert),
  }));
  const { clientId, filter, cert } = identities.subscriber;
  const subscriber: SubscriberSpec = { url, clientId, filter, tls: material(cert) };
  return { publishers, subscriber };
}
