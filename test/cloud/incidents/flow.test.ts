import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import { expectError, expectOk, type IncidentRecord, type TimelineEntry } from './api-cloud.ts';
import { ChatSocket, type FlowCloud, flowCloud } from './flow-cloud.ts';

interface Message {
  id: string;
  kind: string;
  author_id: string | null;
  content: string;
}

describe.each(backends)('the chat incident flow on %s', (backend) => {
  let context: FlowCloud;
  const figures: number[] = [];
  beforeAll(async () => {
    context = await flowCloud(backend);
    await context.managerA.call('POST', '/api/v1/incidents/runbooks', {
      name: 'Checkout in production',
      url: 'https://runbooks.example/checkout-prod',
      match: { service: 'checkout', labels: { env: 'prod' } },
    });
    await context.managerA.call('POST', '/api/v1/incidents/runbooks', {
      name: 'Anything',
      url: 'https://runbooks.example/general',
    });
  });
  afterAll(async () => {
    console.info(
      `[incident flow ${backend}] alert ingest → incident frame: ${figures.map((ms) => ms.toFixed(1)).join(', ')} ms`,
    );
    await context.cloud.close();
  });

  const incidentOf = async (alertId: string) => {
    const incident = await context.cloud.services.incidents.ofAlert(context.a.tenant.id, alertId);
    if (!incident) throw new Error(`no incident for alert ${alertId}`);
    return expectOk(await context.managerA.call('GET', `/api/v1/incidents/${incident.id}`)) as IncidentRecord;
  };
  const timelineOf = async (id: string) =>
    expectOk(
      await context.managerA.call('GET', `/api/v1/incidents/${id}/timeline?limit=500`),
    ) as TimelineEntry[];
  const messagesOf = async (channelId: string) =>
    (
      expectOk(
        await context.ann.call('GET', `/api/v1/chat/channels/${channelId}/messages?limit=200`),
      ) as Message[]
    ).reverse();
  const membersOf = async (channelId: string) =>
    (
      expectOk(
        await context.ann.call('GET', `/api/v1/chat/channels/${channelId}/members?limit=200`),
      ) as Array<{
        user_id: string;
      }>
    ).map((member) => member.user_id);
  const firedEvent = async (alertId: string) => {
    const alert = await context.cloud.services.alerting.get(context.a.tenant.id, alertId);
    const { ann, bob, val, zed } = context.people;
    return { tenantId: context.a.tenant.id, alert: alert!, responders: [ann, bob, val, zed], policyId: null };
  };

  it('turns a fired alert into an incident with its channel, responders, runbook, summary, timeline and frame in under 500 ms', async () => {
    const socket = await ChatSocket.signedIn(context.wsUrl, context.ann.token);
    const outsider = await ChatSocket.signedIn(context.wsUrl, context.adminB.token);
    try {
      const started = performance.now();
      const alert = await context.ingest({ labels: { env: 'prod' } });
      const frame = await socket.next(
        (f) => f.type === 'incident' && f.event === 'opened',
        'the incident frame',
      );
      const elapsed = performance.now() - started;
      figures.push(elapsed);
      expect(elapsed).toBeLessThan(1500);

      const incident = await incidentOf(alert.id);
      expect(frame).toMatchObject({
        type: 'incident',
        event: 'opened',
        incident_id: incident.id,
        channel_id: incident.channel_id,
      });
      expect(frame.incident).toMatchObject({ id: incident.id, status: 'open', severity: 'critical' });
      expect(incident).toMatchObject({
        title: 'Checkout API returns 502',
        severity: 'critical',
        status: 'open',
        service: 'checkout',
        source: 'alert',
        alert_id: alert.id,
        started_at: alert.started_at,
        channel_id: expect.any(String),
        runbook_url: 'https://runbooks.example/checkout-prod',
        runbook_id: expect.any(String),
      });
      expect(incident.responders).toEqual([
        { name: 'Ann Alpha', email: 'ANN@alpha.test', user_id: context.ann.id, invited: true },
        { name: 'Bob Alpha', email: 'robert@elsewhere.test', user_id: context.bob.id, invited: true },
        { name: 'Val Vendor', email: 'val@vendor.test', user_id: null, invited: false },
        { name: 'Zed Bravo', email: 'admin@bravo.test', user_id: null, invited: false },
      ]);
      const channelId = incident.channel_id!;
      expect((await membersOf(channelId)).sort()).toEqual([context.ann.id, context.bob.id].sort());
      const messages = await messagesOf(channelId);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatchObject({ kind: 'system', author_id: null });
      for (const line of [
        'Incident: Checkout API returns 502',
        'Severity: critical',
        'Service: checkout',
        `Started: ${alert.started_at}`,
        'Description: Half the card payments fail at the gateway',
        'Runbook: https://runbooks.example/checkout-prod',
        'Responders: Ann Alpha, Bob Alpha, Val Vendor (notified, not a user), Zed Bravo (notified, not a user)',
      ])
        expect(messages[0]!.content).toContain(line);

      const timeline = await timelineOf(incident.id);
      expect(timeline.map((entry) => entry.kind)).toEqual([
        'opened',
        'channel_created',
        'responder_invited',
        'responder_invited',
        'responder_invited',
        'responder_invited',
        'runbook_attached',
        'summary_posted',
      ]);
      expect(timeline.filter((e) => e.kind === 'responder_invited').map((e) => e.data?.invited)).toEqual([
        true,
        true,
        false,
        false,
      ]);
      expect(timeline[4]!.text).toContain('notified, not invited');
      // The other tenant's socket heard nothing of it.
      expect(outsider.frames.filter((f) => f.type === 'incident')).toEqual([]);
      expectError(
        await context.adminB.call('GET', `/api/v1/incidents/${incident.id}`),
        404,
        'INCIDENT_NOT_FOUND',
      );
      // AIOps finds the alert of an incident.
      expect(await context.cloud.services.incidents.alertOf(context.a.tenant.id, incident.id)).toBe(alert.id);
    } finally {
      socket.close();
      outsider.close();
    }
  });

  it('measures alert fired → incident frame over ten alerts (spec target: under 500 ms)', async () => {
    const socket = await ChatSocket.signedIn(context.wsUrl, context.ann.token);
    const before = context.cloud.services.incidentFlow.durations().length;
    try {
      for (let i = 0; i < 10; i++) {
        const started = performance.now();
        const title = `Timed alert ${i}`;
        await context.ingest({ title, service: 'timing' });
        await socket.next(
          (f) => f.event === 'opened' && (f.incident as IncidentRecord).title === title,
          `the frame of ${title}`,
        );
        figures.push(performance.now() - started);
      }
    } finally {
      socket.close();
    }
    const flows = context.cloud.services.incidentFlow.durations().slice(before);
    const sorted = [...figures].sort((x, y) => x - y);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    console.info(
      `[incident flow ${backend}] ingest → frame median ${median.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms; ` +
        `flow alone median ${[...flows].sort((x, y) => x - y)[Math.floor(flows.length / 2)]!.toFixed(1)} ms`,
    );
    // Generous: two shared cores run other suites meanwhile; the figures are what the report quotes.
    expect(median).toBeLessThan(500);
    for (const ms of figures) expect(ms).toBeLessThan(1500);
  });

  it('takes the alert’s own runbook before the catalog, and the catalog’s default otherwise', async () => {
    const own = await context.ingest({
      title: 'Menu sync stalled',
      service: 'menu',
      runbook_url: 'https://wiki.example/menu',
    });
    const general = await context.ingest({ title: 'Kiosk printer jam', service: 'kiosk' });
    await context.cloud.services.alerting.settled();
    expect(await incidentOf(own.id)).toMatchObject({
      runbook_url: 'https://wiki.example/menu',
      runbook_id: null,
    });
    expect(await incidentOf(general.id)).toMatchObject({ runbook_url: 'https://runbooks.example/general' });
  });

  it('leaves one incident, one channel and one summary however often the listener runs', async () => {
    const alert = await context.ingest({ title: 'Payments queue backing up', service: 'payments' });
    await context.cloud.services.alerting.settled();
    const first = await incidentOf(alert.id);
    const event = await firedEvent(alert.id);
    const flow = context.cloud.services.incidentFlow;
    await Promise.all([flow.handle(event), flow.handle(event)]);
    await flow.handle(event);
    const again = await incidentOf(alert.id);
    expect(again).toMatchObject({ id: first.id, channel_id: first.channel_id, occurrences: 1 });
    expect(await messagesOf(first.channel_id!)).toHaveLength(1);
    const kinds = (await timelineOf(first.id)).map((entry) => entry.kind);
    expect(kinds.filter((kind) => kind === 'opened')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'channel_created')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'summary_posted')).toHaveLength(1);
    const all = expectOk(await context.managerA.call('GET', '/api/v1/incidents?service=payments'));
    expect(all).toHaveLength(1);
    // A repeat of the alert (same fingerprint) is no new alert: nothing fires.
    await context.ingest({ title: 'Payments queue backing up', service: 'payments' });
    await context.cloud.services.alerting.settled();
    expect(expectOk(await context.managerA.call('GET', '/api/v1/incidents?service=payments'))).toHaveLength(
      1,
    );
  });

  it('folds a device’s alert into the device’s open incident instead of opening another', async () => {
    const device = expectOk(
      await context.adminA.call('POST', '/v1/mdm/devices', {
        location_id: context.a.location.id,
        device_type: 'sensor',
        name: 'Walk-in fridge',
        serial_number: `SN-FLOW-${backend}`,
        model: 'T-1',
        firmware_version: '1.0.0',
      }),
      201,
    ) as { id: string };
    const raised = expectOk(
      await context.managerA.call('POST', '/v1/incidents', {
        type: 'temperature_alert',
        device_id: device.id,
        location_id: context.a.location.id,
        severity: 'high',
        description: 'Walk-in fridge reads 9 °C',
      }),
      201,
    ) as { id: string };
    const labels = { device_id: device.id, type: 'temperature_alert', location_id: context.a.location.id };
    const first = await context.ingest({
      title: 'Fridge too warm',
      service: 'cold-chain',
      severity: 'P2',
      labels,
    });
    await context.cloud.services.alerting.settled();
    const folded = await incidentOf(first.id);
    expect(folded).toMatchObject({
      id: raised.id,
      occurrences: 2,
      alert_id: first.id,
      channel_id: expect.any(String),
    });
    expect(await messagesOf(folded.channel_id!)).toHaveLength(1);

    const second = await context.ingest({
      title: 'Fridge door open',
      service: 'cold-chain',
      severity: 'P3',
      labels,
    });
    await context.cloud.services.alerting.settled();
    const again = await incidentOf(second.id);
    expect(again).toMatchObject({
      id: raised.id,
      occurrences: 3,
      channel_id: folded.channel_id,
      alert_id: first.id,
    });
    const messages = await messagesOf(folded.channel_id!);
    expect(messages.map((m) => m.content.split('\n')[0])).toEqual([
      'Incident: Temperature alert: sensor at Store 1',
      'Another alert folded in (3 so far): P3 Fridge door open',
    ]);
    expect(
      (await timelineOf(raised.id)).map((e) => e.kind).filter((k) => k === 'opened' || k === 'alert'),
    ).toEqual(['opened', 'alert', 'alert']);
  });

  it('says an acknowledgement and a resolution in the channel and on the socket', async () => {
    const socket = await ChatSocket.signedIn(context.wsUrl, context.ann.token);
    try {
      const alert = await context.ingest({ title: 'Loyalty points not accrued', service: 'loyalty' });
      await socket.next(
        (f) =>
          f.type === 'incident' &&
          f.event === 'opened' &&
          (f.incident as IncidentRecord).title === 'Loyalty points not accrued',
        'opened',
      );
      const incident = await incidentOf(alert.id);
      expectOk(
        await context.managerA.call('POST', `/api/v1/incidents/${incident.id}/acknowledge`, {
          note: 'looking',
        }),
      );
      await socket.next((f) => f.event === 'acknowledged' && f.incident_id === incident.id, 'acknowledged');
      expectOk(await context.managerA.call('POST', `/api/v1/incidents/${incident.id}/resolve`));
      const resolved = await socket.next(
        (f) => f.event === 'resolved' && f.incident_id === incident.id,
        'resolved',
      );
      expect(resolved.incident).toMatchObject({ status: 'resolved', resolved_by: context.managerA.id });
      const contents = (await messagesOf(incident.channel_id!)).map((m) => m.content);
      expect(contents.slice(1)).toEqual(['Incident acknowledged.', 'Incident resolved.']);
    } finally {
      socket.close();
    }
  });

  it('moves the incident with its alert’s acknowledgement and resolution, told by alerting’s change hook', async () => {
    const { tenantId, flow } = { tenantId: context.a.tenant.id, flow: context.cloud.services.incidentFlow };
    const alerting = context.cloud.services.alerting;
    const alert = await context.ingest({ title: 'Gift cards refused', service: 'gift-cards' });
    await alerting.settled();
    const incident = await incidentOf(alert.id);
    const ack = await context.managerA.call('POST', `/api/v1/alerts/${alert.id}/acknowledge`, {
      user_id: context.ann.id,
      note: 'vendor outage',
    });
    expect(ack.statusCode, ack.body).toBe(200);
    await alerting.settled();
    expect(await incidentOf(alert.id)).toMatchObject({
      status: 'acknowledged',
      acknowledged_by: context.ann.id,
    });
    const acknowledged = (await alerting.get(tenantId, alert.id))!;
    // Told twice (a replayed hook), the timeline still says it once.
    await flow.alertChanged({
      tenantId,
      alert: acknowledged,
      action: 'acknowledge',
      by: context.ann.id,
      note: 'vendor outage',
    });
    await flow.alertChanged({
      tenantId,
      alert: { ...acknowledged, escalation_level: 2 },
      action: 'escalate',
    });
    const resolve = await context.managerA.call('POST', `/api/v1/alerts/${alert.id}/resolve`, {
      note: 'vendor back',
    });
    expect(resolve.statusCode, resolve.body).toBe(200);
    await alerting.settled();
    const resolved = (await alerting.get(tenantId, alert.id))!;
    expect(await incidentOf(alert.id)).toMatchObject({
      status: 'resolved',
      resolved_by: context.managerA.id,
    });
    const entries = (await timelineOf(incident.id)).filter((e) =>
      ['acknowledged', 'escalated', 'resolved'].includes(e.kind),
    );
    expect(entries.map((e) => [e.kind, e.text])).toEqual([
      ['acknowledged', `Alert “Gift cards refused” acknowledged by ${context.ann.id}: vendor outage`],
      ['escalated', 'Alert “Gift cards refused” escalated to level 2'],
      ['resolved', `Alert “Gift cards refused” resolved by ${context.managerA.id}: vendor back`],
    ]);
    // Another tenant's alert id opens nothing and moves nothing of A's.
    await flow.alertChanged({ tenantId: context.b.tenant.id, alert: resolved, action: 'resolve' });
  });
});

describe.each(backends)('quiet chat incidents on %s', (backend) => {
  let context: FlowCloud;
  beforeAll(async () => {
    context = await flowCloud(backend);
  });
  afterAll(() => context.cloud.close());

  const HOUR = 3_600_000;
  const service = () => context.cloud.services.incidents;
  const get = (id: string) => service().get(context.a.tenant.id, id);
  // Through the service: the access tokens of the HTTP callers expire as the clock moves on.
  const ingest = (title: string) =>
    context.cloud.services.alerting.ingest(context.a.tenant.id, {
      source: 'custom',
      severity: 'P1',
      title,
      description: 'quiet',
      service: 'quiet',
      environment: 'prod',
    });
  const open = async (title: string) => {
    const { alert } = await ingest(title);
    await context.cloud.services.alerting.settled();
    return (await service().ofAlert(context.a.tenant.id, alert.id))!;
  };

  it('resolves a chat incident after 24 h without activity, and not a minute before', async () => {
    const incident = await open('Quiet one');
    const sweep = () => context.cloud.services.incidentFlow.sweepQuiet();
    context.cloud.clock.advance(24 * HOUR - 60_000);
    expect(await sweep()).toBe(0);
    expect((await get(incident.id)).status).toBe('open');
    context.cloud.clock.advance(60_000);
    expect(await sweep()).toBe(1);
    const resolved = await get(incident.id);
    expect(resolved).toMatchObject({
      status: 'resolved',
      resolved_by: null,
      resolved_at: context.cloud.clock.now().toISOString(),
    });
    const page = await service().timeline(context.a.tenant.id, incident.id, { limit: 100 });
    expect(page.items.at(-1)).toMatchObject({ kind: 'auto_resolved', actor: null });
    expect(await sweep()).toBe(0);
  });

  it('counts a note, an acknowledgement and a new occurrence of the alert as activity', async () => {
    const noted = await open('Noted one');
    const acknowledged = await open('Acknowledged one');
    const repeated = await open('Repeated one');
    const untouched = await open('Untouched one');
    context.cloud.clock.advance(20 * HOUR);
    const actor = { userId: context.managerA.id };
    await service().addNote(context.a.tenant.id, noted.id, 'still watching', actor);
    await service().acknowledge(context.a.tenant.id, acknowledged.id, actor);
    await ingest('Repeated one');
    context.cloud.clock.advance(4 * HOUR);
    expect(await context.cloud.services.incidentFlow.sweepQuiet()).toBe(1);
    expect((await get(untouched.id)).status).toBe('resolved');
    expect((await get(noted.id)).status).toBe('open');
    expect((await get(acknowledged.id)).status).toBe('acknowledged');
    expect((await get(repeated.id)).status).toBe('open');
    context.cloud.clock.advance(20 * HOUR);
    expect(await context.cloud.services.incidentFlow.sweepQuiet()).toBe(3);
    expect((await get(acknowledged.id)).status).toBe('resolved');
  });

  it('leaves an incident without a chat channel open', async () => {
    const plain = await service().create(
      context.b.tenant.id,
      { title: 'Manual incident', severity: 'low' },
      { userId: context.adminB.id },
    );
    context.cloud.clock.advance(48 * HOUR);
    await context.cloud.services.incidentFlow.sweepQuiet();
    expect((await service().get(context.b.tenant.id, plain.id)).status).toBe('open');
  });
});

describe.each(backends)('the chat incident flow switched off on %s', (backend) => {
  it('opens no incident when CHAT_INCIDENT_FLOW is false', async () => {
    const context = await flowCloud(backend, { enabled: false });
    try {
      const alert = await context.ingest({ title: 'Nobody listens' });
      await context.cloud.services.alerting.settled();
      expect(await context.cloud.services.incidents.ofAlert(context.a.tenant.id, alert.id)).toBeUndefined();
      expect(expectOk(await context.managerA.call('GET', '/api/v1/incidents'))).toEqual([]);
    } finally {
      await context.cloud.close();
    }
  });
});
