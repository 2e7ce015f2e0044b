/**
 * The fleet link (issue 6): the cloud's MQTT connection to every appliance, through the embedded
 * broker or any broker by URL, carrying the device registry's commands and revoked device
 * certificates, and hearing the answers.
 */
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

export { type FleetBroker, startFleetBroker } from './broker.ts';
export { type CloudFleetLink, createCloudFleetLink } from './link.ts';
