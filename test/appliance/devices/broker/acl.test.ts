import { describe, expect, it } from 'vitest';
import {
  type BrokerPrincipal,
  canPublish,
  canRead,
  canSubscribe,
  filterCovers,
  readableBy,
} from '../../../../appliance/devices/broker/acl.ts';

const STORE = 'store-1';
const P = 'edge';
const kds: BrokerPrincipal = { kind: 'device', deviceType: 'kds', locationId: STORE, deviceId: 'kds-1' };
const cashier: BrokerPrincipal = { kind: 'staff', userId: 'u1', roles: ['staff'], locationId: STORE };
const manager: BrokerPrincipal = {
  kind: 'staff',
  userId: 'u2',
  roles: ['restaurant_manager'],
  locationId: STORE,
};
const developer: BrokerPrincipal = { kind: 'developer' };
const allowed = (decision: { allowed: boolean }) => decision.allowed;

describe('filterCovers (filter ⊆ pattern)', () => {
  it.each([
    ['edge/+/s/+/status', 'edge/+/s/+/status', true],
    ['edge/+/s/+/status', 'edge/kds/s/kds-1/status', true],
    ['edge/+/s/+/status', 'edge/kds/s/+/status', true],
    ['edge/+/s/+/status', 'edge/+/s/+/+', false],
    ['edge/+/s/+/status', 'edge/+/s/#', false],
    ['edge/+/s/+/status', 'edge/+/s/+/status/#', false],
    ['edge/+/s/+/status', 'edge/+/other/+/status', false],
    ['edge/kds/s/kds-1/cmd', 'edge/kds/s/+/cmd', false],
    ['a/#', 'a', true],
    ['a/#', 'a/b/+/#', true],
    ['a/b', 'a/b/c', false],
    ['#', '#', true],
  ])('%s covers %s: %s', (pattern, filter, expected) => {
    expect(filterCovers(pattern, filter)).toBe(expected);
  });
});

describe('device rules', () => {
  it('publishes its own status, telemetry, alert and ack, nothing else', () => {
    for (const channel of ['status', 'telemetry', 'alert', 'ack'])
      expect(allowed(canPublish(kds, `edge/kds/${STORE}/kds-1/${channel}`, P))).toBe(true);
    expect(canPublish(kds, `edge/kds/${STORE}/kds-1/cmd`, P)).toEqual({
      allowed: false,
      reason: 'devices do not publish cmd',
    });
    expect(allowed(canPublish(kds, `edge/kds/${STORE}/kds-2/status`, P))).toBe(false);
    expect(allowed(canPublish(kds, `edge/printer/${STORE}/kds-1/status`, P))).toBe(false);
    expect(allowed(canPublish(kds, `edge/kds/other/kds-1/status`, P))).toBe(false);
    expect(allowed(canPublish(kds, `other/kds/${STORE}/kds-1/status`, P))).toBe(false);
    expect(allowed(canPublish(kds, '$SYS/x', P))).toBe(false);
  });

  it('subscribes to exactly its own cmd topic', () => {
    expect(allowed(canSubscribe(kds, `edge/kds/${STORE}/kds-1/cmd`, P))).toBe(true);
    for (const filter of [
      `edge/kds/${STORE}/+/cmd`,
      `edge/kds/${STORE}/kds-1/#`,
      '#',
      `edge/kds/${STORE}/kds-2/cmd`,
    ])
      expect(allowed(canSubscribe(kds, filter, P))).toBe(false);
    expect(canRead(kds, `edge/kds/${STORE}/kds-1/cmd`, P)).toBe(true);
    expect(canRead(kds, `edge/kds/${STORE}/kds-2/cmd`, P)).toBe(false);
  });
});

describe('staff rules', () => {
  it('every role reads the store’s device board; only managers read alerts and telemetry', () => {
    expect(allowed(canSubscribe(cashier, `edge/+/${STORE}/+/status`, P))).toBe(true);
    expect(allowed(canSubscribe(cashier, `edge/sensor/${STORE}/+/status`, P))).toBe(true);
    expect(allowed(canSubscribe(cashier, `edge/+/${STORE}/+/alert`, P))).toBe(false);
    expect(allowed(canSubscribe(manager, `edge/+/${STORE}/+/alert`, P))).toBe(true);
    expect(allowed(canSubscribe(manager, `edge/+/${STORE}/+/telemetry`, P))).toBe(true);
    expect(allowed(canSubscribe(manager, `edge/+/${STORE}/+/cmd`, P))).toBe(false);
    expect(allowed(canSubscribe(manager, `edge/+/other/+/alert`, P))).toBe(false);
    expect(canRead(cashier, `edge/kds/${STORE}/kds-1/status`, P)).toBe(true);
    expect(canRead(cashier, `edge/kds/${STORE}/kds-1/telemetry`, P)).toBe(false);
  });

  it('only managers publish, and only commands to a device of their store', () => {
    expect(allowed(canPublish(manager, `edge/kds/${STORE}/kds-1/cmd`, P))).toBe(true);
    expect(canPublish(cashier, `edge/kds/${STORE}/kds-1/cmd`, P)).toEqual({
      allowed: false,
      reason: 'commands need a manager',
    });
    expect(allowed(canPublish(manager, `edge/kds/other/kds-1/cmd`, P))).toBe(false);
    expect(allowed(canPublish(manager, `edge/kds/${STORE}/kds-1/status`, P))).toBe(false);
  });
});

describe('developer (plain TCP)', () => {
  it('may do anything but publish to reserved $ topics', () => {
    expect(allowed(canSubscribe(developer, '#', P))).toBe(true);
    expect(allowed(canPublish(developer, 'anything/at/all', P))).toBe(true);
    expect(allowed(canPublish(developer, '$SYS/broker', P))).toBe(false);
  });
});

describe('readableBy (a session’s read check, worked out once)', () => {
  const topics = [
    `edge/kds/${STORE}/kds-1/cmd`,
    `edge/kds/${STORE}/kds-2/cmd`,
    `edge/kds/${STORE}/kds-1/status`,
    `edge/sensor/${STORE}/fridge-1/telemetry`,
    `edge/sensor/${STORE}/fridge-1/alert`,
    `edge/sensor/other/fridge-1/telemetry`,
    `edge/sensor/${STORE}/fridge-1/telemetry/extra`,
    `edge/sensor/${STORE}/telemetry`,
    '$SYS/broker/uptime',
    'anything/at/all',
  ];

  it.each([
    ['kds', kds],
    ['cashier', cashier],
    ['manager', manager],
    ['developer', developer],
  ])('answers as the ACL’s rules for a %s', (name, principal) => {
    const readable = readableBy(principal, P);
    const expected = {
      kds: [true, false, false, false, false, false, false, false, false, false],
      cashier: [false, false, true, false, false, false, false, false, false, false],
      manager: [false, false, true, true, true, false, false, false, false, false],
      developer: topics.map(() => true),
    }[name]!;
    expect(topics.map(readable)).toEqual(expected);
    expect(topics.map((topic) => canRead(principal, topic, P))).toEqual(expected);
  });
});
