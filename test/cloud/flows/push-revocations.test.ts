import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RevocationNotice } from '../../../cloud/devices/index.ts';
import { createRevocationPush } from '../../../cloud/flows/push-revocations.ts';
import {
  type FleetCommand,
  readCommand,
  readRevokedCertificates,
} from '../../../shared/devices/fleet-protocol.ts';
import { newId } from '../../../shared/ids.ts';
import { backends } from '../../support/stores.ts';
import {
  type DeviceCloud,
  deviceCloud,
  deviceKey,
  type Enrolled,
  expectOk,
  registerDevice,
  renewalOf,
} from '../devices/device-client.ts';

const log = pino({ level: 'silent' });

interface Sent {
  tenantId: string;
  applianceId: string;
  command: FleetCommand;
}

/**
 * The push of revoked certificates with the device service for real and a link that records what
 * it would publish: which appliances hear of which revocation.
 */
async function pushRig(context: DeviceCloud) {
  const { cloud, a, b } = context;
  // Stores of their own, so what earlier tests provisioned never shows here.
  const store = (tenant: typeof a) =>
    cloud.services.tenancy.createLocation(tenant.tenant.id, {
      name: `Store ${newId()}`,
      brand_id: tenant.brand.id,
      region_id: tenant.region.id,
    });
  const [store1, store2, bravoStore] = [await store(a), await store(a), await store(b)];
  const provision = async (tenantId: string, locationId: string) =>
    (await cloud.services.sync.provisionAppliance(tenantId, { location_id: locationId })).id;
  const appliances = {
    store1: await provision(a.tenant.id, store1.id),
    store2: await provision(a.tenant.id, store2.id),
    bravo: await provision(b.tenant.id, bravoStore.id),
  };
  /** A kitchen screen of store 1, enrolled with a key made on it. */
  const enrolled = async (): Promise<Enrolled> => {
    const device = await registerDevice(context.adminA, store1.id);
    const key = await deviceKey();
    const issued = expectOk(
      await context.anonymous('POST', '/v1/mdm/enroll', {
        enrollment_token: device.enrollment_token,
        csr: key.csr,
      }),
    );
    return { ...issued, key };
  };
  const sent: Sent[] = [];
  const push = createRevocationPush({
    services: cloud.services,
    link: {
      send: async (tenantId, applianceId, command) => {
        // What goes on the wire is what the appliance reads back.
        expect(readCommand(JSON.stringify(command))).toEqual(command);
        sent.push({ tenantId, applianceId, command });
      },
    },
    clock: cloud.clock,
    newId,
    log,
  });
  const pushes: Array<Promise<unknown>> = [];
  const stop = cloud.services.devices.onCertificatesRevoked((notice) => pushes.push(push.push(notice)));
  return {
    push,
    appliances,
    enrolled,
    sent,
    /** Waits for the pushes the revocations so far started. */
    settled: () => Promise.all(pushes),
    stop,
  };
}

const serialsTo = (sent: Sent[], applianceId: string) =>
  sent
    .filter((entry) => entry.applianceId === applianceId)
    .flatMap((entry) => readRevokedCertificates(entry.command.payload)!.map((c) => c.serial));

describe.each(backends)('revoked certificates pushed to the stores (%s)', (backend) => {
  let context: DeviceCloud;
  let rig: Awaited<ReturnType<typeof pushRig>>;
  beforeAll(async () => {
    context = await deviceCloud(backend);
  });
  afterAll(() => context.cloud.close());
  beforeEach(async () => {
    rig = await pushRig(context);
  });
  afterEach(() => rig.stop());

  it('sends a revoked certificate to the appliances of the store it names, and to no other', async () => {
    const device = await rig.enrolled();
    const revoked = expectOk(
      await context.adminA.call('POST', `/v1/mdm/certificates/${device.serial}/revoke`, {
        reason: 'key_compromise',
      }),
    );
    await rig.settled();
    expect(rig.sent.map((entry) => [entry.tenantId, entry.applianceId])).toEqual([
      [context.a.tenant.id, rig.appliances.store1],
    ]);
    const [{ command }] = rig.sent as [Sent];
    expect(command).toMatchObject({ kind: 'revoke_certificates', expires_at: device.expires_at });
    expect(readRevokedCertificates(command.payload)).toEqual([
      {
        serial: device.serial,
        revoked_at: revoked.revoked_at,
        reason: 'key_compromise',
        not_after: device.expires_at,
      },
    ]);
    // Revoking it again changes nothing and pushes nothing.
    expectOk(await context.adminA.call('POST', `/v1/mdm/certificates/${device.serial}/revoke`, {}));
    await rig.settled();
    expect(rig.sent).toHaveLength(1);
  });

  it('pushes every live certificate of a revoked device, but no certificate a renewal superseded', async () => {
    const device = await rig.enrolled();
    const renewal = await renewalOf(device);
    const renewed = expectOk(
      await context.anonymous('POST', `/v1/mdm/devices/${device.device_id}/renew`, renewal.body),
    );
    await rig.settled();
    expect(rig.sent).toEqual([]);

    expectOk(await context.adminA.call('POST', `/v1/mdm/devices/${device.device_id}/revoke`, {}));
    await rig.settled();
    expect(serialsTo(rig.sent, rig.appliances.store1)).toEqual([renewed.serial]);
    expect(rig.sent.every((entry) => entry.applianceId === rig.appliances.store1)).toBe(true);
  });

  it('sends a certificate that names no store to all of its tenant’s appliances, and nothing across tenants', async () => {
    const now = context.cloud.clock.now();
    const notice: RevocationNotice = {
      tenantId: context.a.tenant.id,
      certificates: [
        {
          serial: 'abc123',
          device_id: 'somewhere',
          revoked_at: now.toISOString(),
          reason: 'unspecified',
          not_after: new Date(now.getTime() + 86_400_000).toISOString(),
          location_id: undefined,
        },
        // Run out already: TLS refuses it without a list.
        {
          serial: 'def456',
          device_id: 'somewhere',
          revoked_at: now.toISOString(),
          reason: 'unspecified',
          not_after: new Date(now.getTime() - 1000).toISOString(),
          location_id: undefined,
        },
      ],
    };
    await rig.push.push(notice);
    const reached = rig.sent.map((entry) => entry.applianceId);
    expect(reached).toEqual(expect.arrayContaining([rig.appliances.store1, rig.appliances.store2]));
    expect(reached).not.toContain(rig.appliances.bravo);
    expect(new Set(rig.sent.map((entry) => entry.tenantId))).toEqual(new Set([context.a.tenant.id]));
    expect(serialsTo(rig.sent, rig.appliances.store2)).toEqual(['abc123']);
  });

  it('knows the acknowledgements of its pushes apart from the registry’s commands', async () => {
    const device = await rig.enrolled();
    expectOk(await context.adminA.call('POST', `/v1/mdm/certificates/${device.serial}/revoke`, {}));
    await rig.settled();
    const { command } = rig.sent[0]!;
    const at = new Date().toISOString();
    const store1 = rig.appliances.store1;
    const tenantId = context.a.tenant.id;
    expect(rig.push.onAck(tenantId, store1, { command_id: command.id, state: 'received', at })).toBe(true);
    expect(rig.push.onAck(tenantId, store1, { command_id: command.id, state: 'succeeded', at })).toBe(true);
    expect(rig.push.onAck(tenantId, store1, { command_id: 'not-a-push', state: 'succeeded', at })).toBe(
      false,
    );
  });
});
