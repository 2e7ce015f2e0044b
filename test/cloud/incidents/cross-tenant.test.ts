import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedTenant } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { member } from '../devices/device-client.ts';
import {
  expectError,
  expectOk,
  type IncidentCloud,
  incidentBody,
  incidentCloud,
  raise,
  registerSensor,
} from './incident-cloud.ts';

let tenantSeq = 0;

describe.each(backends)('incidents across tenants on %s', (backend) => {
  let shared: IncidentCloud;
  /** The file's cloud and tenant A, with a tenant B of the running test's own. */
  let context: IncidentCloud;
  // One cloud for the file; each test has a B of its own: an incident one test raises for B would
  // otherwise show in another's check that B's lists are empty.
  beforeAll(async () => {
    shared = await incidentCloud(backend);
  });
  beforeEach(async () => {
    const n = ++tenantSeq;
    const b = await seedTenant(shared.cloud.services, `bravo-${n}`);
    const adminB = await member(shared.cloud, b.tenant.id, `admin@bravo-${n}.test`, ['tenant_admin']);
    context = { ...shared, b, adminB };
  });
  afterAll(() => shared.cloud.close());

  it('answers 404 to B’s admin for A’s incident, shows B none of A’s, and changes nothing', async () => {
    const deviceA = await registerSensor(context.adminA, context.a.location.id);
    const incident = await raise(context.adminA, incidentBody(deviceA, context.a.location.id));
    const path = `/v1/incidents/${incident.id}`;
    const before = expectOk(await context.adminA.call('GET', path));

    expectError(await context.adminB.call('GET', path), 404, 'INCIDENT_NOT_FOUND');
    expectError(await context.adminB.call('POST', `${path}/acknowledge`), 404, 'INCIDENT_NOT_FOUND');
    expectError(await context.adminB.call('POST', `${path}/resolve`), 404, 'INCIDENT_NOT_FOUND');
    for (const query of [
      '',
      `?location_id=${context.a.location.id}`,
      `?device_id=${deviceA}`,
      '?status=open',
    ]) {
      expect(expectOk(await context.adminB.call('GET', `/v1/incidents${query}`)), query).toEqual([]);
    }
    expect(expectOk(await context.adminA.call('GET', path))).toEqual(before);
  });

  it('refuses B an incident at A’s store or for A’s device', async () => {
    const deviceA = await registerSensor(context.adminA, context.a.location.id);
    const deviceB = await registerSensor(context.adminB, context.b.location.id);
    const atA = expectError(
      await context.adminB.call('POST', '/v1/incidents', incidentBody(deviceB, context.a.location.id)),
      400,
      'INVALID_REQUEST',
    );
    expect(atA.details).toEqual([{ field: 'body.location_id', message: 'does not exist in this tenant' }]);
    const forA = expectError(
      await context.adminB.call('POST', '/v1/incidents', incidentBody(deviceA, context.b.location.id)),
      400,
      'INVALID_REQUEST',
    );
    expect(forA.details).toEqual([
      { field: 'body.device_id', message: 'is not a registered device of this tenant' },
    ]);
    expect(expectOk(await context.adminA.call('GET', `/v1/incidents?device_id=${deviceA}`))).toEqual([]);

    // Each tenant's own device alert is its own incident, even while the other's (A's, raised here)
    // is open.
    await raise(context.adminA, incidentBody(deviceA, context.a.location.id));
    const own = await raise(context.adminB, incidentBody(deviceB, context.b.location.id));
    expect(own).toMatchObject({ tenant_id: context.b.tenant.id, occurrences: 1 });
  });
});
