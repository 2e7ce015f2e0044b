import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { expect } from 'vitest';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { type StartOptions, startAppliance } from '../../../appliance/main.ts';
import { startFleetBroker } from '../../../cloud/fleet/broker.ts';
import { createCloudFleetLink } from '../../../cloud/fleet/link.ts';
import type { FleetAck, FleetCommand, FleetStatus } from '../../../shared/devices/fleet-protocol.ts';
import { LOCATION, TENANT } from '../../support/appliance.ts';

const log = pino({ level: 'silent' });

/**
 * The cloud's end for real (its embedded fleet broker, with a stub in place of the sync
 * credential check, and its fleet link client) and a whole appliance started as main.ts starts
 * it, with a device broker on a free plain TCP port. `restarts` counts the restarts asked for.
 */
export async function startFleetRig(env: Record<string, string> = {}, options: StartOptions = {}) {
  const applianceId = randomUUID();
  const credential = `sak_${applianceId}.${randomBytes(24).toString('base64url')}`;
  const dir = mkdtempSync(join(tmpdir(), 'appliance-fleet-'));
  const keys = generateKeyPairSync('ed25519');
  const keyFile = join(dir, 'update-key.pem');
  writeFileSync(keyFile, keys.publicKey.export({ type: 'spki', format: 'pem' }));

  const broker = await startFleetBroker({
    port: 0,
    host: '127.0.0.1',
    prefix: 'edge',
    log,
    authenticateAppliance: async (given) =>
      given === credential ? { tenantId: TENANT, applianceId } : undefined,
  });
  const acks: FleetAck[] = [];
  const statuses: FleetStatus[] = [];
  const cloud = createCloudFleetLink({
    url: broker.url,
    ...broker.cloudCredentials,
    prefix: 'edge',
    log,
    onAck: async (_tenant, _appliance, ack) => void acks.push(ack),
    onStatus: async (_tenant, _appliance, status) => void statuses.push(status),
  });
  await cloud.start();

  let restarts = 0;
  const applianceEnv = {
    TENANT_ID: TENANT,
    LOCATION_ID: LOCATION,
    APPLIANCE_DATA_DIR: join(dir, 'data'),
    APPLIANCE_PORT: '0',
    APPLIANCE_HOST: '127.0.0.1',
    APPLIANCE_MQTT_PORT: '0',
    APPLIANCE_CLOUD_CREDENTIAL: credential,
    APPLIANCE_FLEET_URL: broker.url,
    APPLIANCE_UPDATE_PUBLIC_KEY: keyFile,
    APPLIANCE_DEVICE_COMMAND_TIMEOUT_SECONDS: '1',
    LOG_LEVEL: 'silent',
    ...env,
  };
  const config = loadApplianceConfig(applianceEnv);
  const appliance = await startAppliance(config, log, {
    env: applianceEnv,
    onRestart: () => {
      restarts += 1;
    },
    restartDelayMs: 10,
    ...options,
  });
  await appliance.fleetConnected;

  const statesOf = (id: string) => acks.filter((a) => a.command_id === id).map((a) => a.state);
  return {
    appliance,
    applianceId,
    updateKey: keys.privateKey,
    dataDir: config.dataDir,
    acks,
    statuses,
    get restarts() {
      return restarts;
    },
    statesOf,
    /** Sends a command as the cloud does; answers its id. */
    async send(
      kind: FleetCommand['kind'],
      payload: Record<string, unknown> = {},
      extra: Partial<FleetCommand> = {},
    ) {
      const command: FleetCommand = {
        id: randomUUID(),
        kind,
        payload,
        issued_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 60_000).toISOString(),
        ...extra,
      };
      await cloud.send(TENANT, applianceId, command);
      return command.id;
    },
    /** Waits for a command to end; answers its last acknowledgement. */
    async ended(id: string) {
      await expect
        .poll(() => statesOf(id).at(-1), { timeout: 10_000 })
        .toMatch(/^(succeeded|failed|rejected|expired)$/);
      return acks.filter((a) => a.command_id === id).at(-1)!;
    },
    /** Sends a command as the cloud does and waits for it to end; answers its last acknowledgement. */
    async run(
      kind: FleetCommand['kind'],
      payload: Record<string, unknown> = {},
      extra: Partial<FleetCommand> = {},
    ) {
      return this.ended(await this.send(kind, payload, extra));
    },
    async close() {
      await appliance.stop();
      await cloud.close();
      await broker.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type FleetRig = Awaited<ReturnType<typeof startFleetRig>>;
