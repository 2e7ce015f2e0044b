import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceTopic, storeChannelFilter, storeStatusFilter } from '../../../../shared/mqtt/topics.ts';
import {
  BAD_UTF8,
  type CaseResult,
  caseRunner,
  MALFORMED_CASES,
  publishPacket,
  type Target,
  tryCase,
} from './malformed-cases.ts';
import { type Pki, STORE, startTestBroker, type TestBroker, testPki } from './support.ts';

/**
 * MQTT 3.1.1's input rules over raw sockets, on both listeners: every malformed packet of the
 * table closes only its own connection (after CONNACK 0x01 for an unsupported protocol level),
 * nothing it carried reaches a subscriber, and two bystanders keep exchanging messages.
 */
const MANAGER = '01900000-0000-7000-8000-000000000001';
const offender = { deviceType: 'sensor' as const, locationId: STORE, deviceId: 'fridge-offender' };
const bystander = { deviceType: 'sensor' as const, locationId: STORE, deviceId: 'fridge-bystander' };
const context = { clientId: offender.deviceId, topic: deviceTopic({ ...offender, channel: 'alert' }) };
const publisherTopic = deviceTopic({ ...bystander, channel: 'telemetry' });

let pki: Pki;
let rig: TestBroker;
beforeAll(async () => {
  pki = await testPki();
  rig = await startTestBroker(pki);
});
afterAll(() => rig.close());

interface Listener {
  target(): Promise<Target>;
  bystanders(): Promise<{ subscriber: MqttClient; publisher: MqttClient }>;
}

const LISTENERS: Array<[string, Listener]> = [
  [
    'development listener (plain TCP)',
    {
      target: async () => ({ port: rig.broker.tcpPort! }),
      async bystanders() {
        const subscriber = await rig.tcpClient('bystander-subscriber');
        await subscriber.subscribeAsync('#', { qos: 2 });
        return { subscriber, publisher: await rig.tcpClient(bystander.deviceId) };
      },
    },
  ],
  [
    'TLS listener (client certificates, ACL)',
    {
      async target() {
        const cert = await pki.ca.device(offender.deviceType, STORE, offender.deviceId);
        return { port: rig.broker.tlsPort!, tls: { ca: pki.ca.cert, cert: cert.cert, key: cert.key } };
      },
      async bystanders() {
        const subscriber = await rig.tlsClient(await pki.ca.staff(MANAGER, ['manager'], STORE), MANAGER);
        const filters = [storeChannelFilter(STORE, 'alert'), storeChannelFilter(STORE, 'telemetry')];
        await subscriber.subscribeAsync([...filters, storeStatusFilter(STORE)], { qos: 2 });
        const cert = await pki.ca.device(bystander.deviceType, STORE, bystander.deviceId);
        return { subscriber, publisher: await rig.tlsClient(cert, bystander.deviceId) };
      },
    },
  ],
];

describe.each(LISTENERS)('%s', (_name, listener) => {
  let run: (malformed: (typeof MALFORMED_CASES)[number]) => Promise<CaseResult>;
  let target: Target;
  const cuts: string[] = [];
  beforeAll(async () => {
    target = await listener.target();
    const { subscriber, publisher } = await listener.bystanders();
    for (const [who, client] of [
      ['subscriber', subscriber],
      ['publisher', publisher],
    ] as const)
      client.on('close', () => cuts.push(who));
    run = caseRunner(target, context, { subscriber, publisher, publisherTopic });
  });

  it.each(MALFORMED_CASES.map((malformed) => [`${malformed.name} [${malformed.rule}]`, malformed] as const))(
    '%s',
    async (_title, malformed) => {
      const result = await run(malformed);
      expect(result).toMatchObject({
        closed: true,
        answer: malformed.expect === 'connack-1' ? [0x20, 0x02, 0x00, 0x01] : [],
        routed: [],
        bystandersAlive: true,
        passed: true,
      });
    },
  );

  it('kept both bystanders connected throughout', () => {
    expect(cuts).toEqual([]);
  });

  it('logs the rule broken, with the client and its transport', async () => {
    const bad = publishPacket({
      topic: Buffer.concat([Buffer.from(`${context.topic}/`), BAD_UTF8.surrogate]),
    });
    const malformed = {
      name: 'surrogate',
      rule: '',
      connected: true,
      expect: 'close' as const,
      bytes: () => bad,
    };
    const before = rig.find('protocol violation; connection closed').length;
    expect((await tryCase(target, malformed, context, 2000)).closed).toBe(true);
    expect(rig.find('protocol violation; connection closed').slice(before)).toMatchObject([
      {
        clientId: offender.deviceId,
        transport: target.tls ? 'tls' : 'tcp',
        rule: 'MQTT-1.5.3-1',
        reason: 'ill-formed UTF-8 in the topic',
      },
    ]);
  });
});
