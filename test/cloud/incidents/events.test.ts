import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEventRow } from '../../../cloud/events/index.ts';
import { backends } from '../../support/stores.ts';
import {
  applianceOf,
  expectOk,
  type Incident,
  type IncidentCloud,
  incidentCloud,
  registerSensor,
  temperatureEvent,
} from './incident-cloud.ts';

describe.each(backends)('incidents from synced device alerts on %s', (backend) => {
  let context: IncidentCloud;
  let appliance: Awaited<ReturnType<typeof applianceOf>>;
  beforeAll(async () => {
    context = await incidentCloud(backend);
    appliance = await applianceOf(context.cloud, context.adminA, context.a.location.id);
  });
  afterAll(() => context.cloud.close());

  const incidentsOf = async (deviceId: string) =>
    expectOk(await context.managerA.call('GET', `/v1/incidents?device_id=${deviceId}`)) as Incident[];
  const alertOf = (deviceId: string, data: Record<string, unknown> = {}, at?: string) =>
    temperatureEvent(context.a.tenant.id, context.a.location.id, deviceId, data, at);
  /** Appends as a writer in the cloud does: inside its own transaction. */
  const append = (events: DomainEventRow[]) =>
    context.cloud.store.db.transaction().execute((trx) => context.cloud.services.events.append(trx, events));

  it('opens exactly one incident for a pushed temperature alert, however often it is pushed', async () => {
    const deviceId = await registerSensor(context.adminA, context.a.location.id);
    const event = alertOf(deviceId, { device_type: 'sensor' });
    const change = appliance.eventChange(event);
    expect(await appliance.push([change])).toEqual(['applied']);
    // The answer was lost: the store sends the same change again, then the event in a new change.
    expect(await appliance.push([change])).toEqual(['duplicate']);
    await appliance.push([appliance.eventChange(event)]);
    await append([event]);

    const [incident, ...others] = await incidentsOf(deviceId);
    expect(others).toEqual([]);
    expect(incident).toMatchObject({
      tenant_id: context.a.tenant.id,
      type: 'temperature_alert',
      title: `Temperature alert: sensor at location ${context.a.location.id}`,
      severity: 'high',
      status: 'open',
      description: `sensor ${deviceId} reads 9 °C, above its maximum of 5 °C`,
      device_id: deviceId,
      location_id: context.a.location.id,
      source: 'event',
      source_event_id: event.id,
      occurrences: 1,
      last_occurred_at: event.occurred_at,
    });
  });

  it('folds a repeat alert for the device into its unresolved incident, and opens anew once resolved', async () => {
    const deviceId = '01900000-0000-7000-8000-00000000f1d9';
    const first = alertOf(deviceId, {}, '2026-06-10T19:00:00.000Z');
    const later = alertOf(deviceId, { severity: 'critical' }, '2026-06-10T19:05:00.000Z');
    const late = alertOf(deviceId, {}, '2026-06-10T19:01:00.000Z');
    await appliance.push([appliance.eventChange(first)]);
    await appliance.push([appliance.eventChange(later), appliance.eventChange(late)]);

    const [incident, ...others] = await incidentsOf(deviceId);
    expect(others).toEqual([]);
    expect(incident).toMatchObject({
      source_event_id: first.id,
      // Not a registered device, and the event names no type: the title says which it is.
      title: `Temperature alert: device ${deviceId} at location ${context.a.location.id}`,
      severity: 'high',
      occurrences: 3,
      // An alert that arrives late does not move the time back.
      last_occurred_at: later.occurred_at,
    });

    expectOk(await context.managerA.call('POST', `/v1/incidents/${incident!.id}/acknowledge`));
    await append([alertOf(deviceId)]);
    expect(await incidentsOf(deviceId)).toMatchObject([
      { id: incident!.id, status: 'acknowledged', occurrences: 4 },
    ]);

    expectOk(await context.managerA.call('POST', `/v1/incidents/${incident!.id}/resolve`));
    const after = alertOf(deviceId, { severity: 'critical' });
    await append([after]);
    const [next, previous] = await incidentsOf(deviceId);
    expect(previous).toMatchObject({ id: incident!.id, status: 'resolved', occurrences: 4 });
    expect(next).toMatchObject({
      status: 'open',
      severity: 'critical',
      occurrences: 1,
      source_event_id: after.id,
    });
  });

  it('skips an alert it cannot read without refusing the store’s batch, and ignores other events', async () => {
    const deviceId = '01900000-0000-7000-8000-0000000bad00';
    const unreadable = { ...alertOf(deviceId), data: '"not an object"' };
    const order: DomainEventRow = { ...alertOf(deviceId), type: 'order.created' };
    const readable = alertOf(deviceId, { severity: 'P1' });
    expect(
      await appliance.push([
        appliance.eventChange(unreadable),
        appliance.eventChange(order),
        appliance.eventChange(readable),
      ]),
    ).toEqual(['applied', 'applied', 'applied']);
    expect(await incidentsOf(deviceId)).toMatchObject([
      { source_event_id: readable.id, severity: 'high', occurrences: 1 },
    ]);
  });

  it('keeps the incident in the tenant whose store sent the alert', async () => {
    const deviceId = await registerSensor(context.adminA, context.a.location.id);
    await append([alertOf(deviceId)]);
    // Another tenant's store reports the same device id: its own incident, A's untouched.
    const applianceB = await applianceOf(context.cloud, context.adminB, context.b.location.id);
    await applianceB.push([
      applianceB.eventChange(temperatureEvent(context.b.tenant.id, context.b.location.id, deviceId)),
    ]);
    expect(await incidentsOf(deviceId)).toMatchObject([{ tenant_id: context.a.tenant.id, occurrences: 1 }]);
    const seenByB = expectOk(
      await context.adminB.call('GET', `/v1/incidents?device_id=${deviceId}`),
    ) as Incident[];
    expect(seenByB).toMatchObject([{ tenant_id: context.b.tenant.id, location_id: context.b.location.id }]);
  });
});
