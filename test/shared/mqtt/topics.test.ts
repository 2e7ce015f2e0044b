import { describe, expect, it } from 'vitest';
import {
  CHANNEL_QOS,
  deviceTopic,
  fleetFilter,
  fleetTopic,
  parseDeviceTopic,
  parseFleetTopic,
  storeChannelFilter,
  storeStatusFilter,
  topicMatches,
} from '../../../shared/mqtt/topics.ts';

const location = '0192f3a4-5b6c-7d8e-9f01-23456789abcd';

describe('device topics', () => {
  it('builds and reads a device topic', () => {
    const topic = deviceTopic({
      deviceType: 'sensor',
      locationId: location,
      deviceId: 'fridge-1',
      channel: 'telemetry',
    });
    expect(topic).toBe(`edge/sensor/${location}/fridge-1/telemetry`);
    expect(parseDeviceTopic(topic)).toEqual({
      prefix: 'edge',
      deviceType: 'sensor',
      locationId: location,
      deviceId: 'fridge-1',
      channel: 'telemetry',
    });
  });

  it('refuses levels that would change what a topic matches', () => {
    for (const deviceId of ['a/b', '+', '#', '', 'has space'])
      expect(() =>
        deviceTopic({ deviceType: 'kds', locationId: location, deviceId, channel: 'status' }),
      ).toThrow(RangeError);
  });

  it('reads nothing from topics of another shape, prefix, type or channel', () => {
    for (const topic of [
      `edge/sensor/${location}/fridge-1`,
      `other/sensor/${location}/fridge-1/status`,
      `edge/toaster/${location}/fridge-1/status`,
      `edge/sensor/${location}/fridge-1/secrets`,
      `edge/sensor/${location}/fridge-1/status/extra`,
    ])
      expect(parseDeviceTopic(topic)).toBeUndefined();
  });

  it('gives the store board and channel filters, and the spec’s QoS per channel', () => {
    expect(storeStatusFilter(location)).toBe(`edge/+/${location}/+/status`);
    expect(storeChannelFilter(location, 'alert', 'acme')).toBe(`acme/+/${location}/+/alert`);
    expect(CHANNEL_QOS).toMatchObject({ alert: 2, telemetry: 1, status: 0 });
  });

  it('builds and reads fleet topics', () => {
    const topic = fleetTopic('tenant-1', 'appliance-1', 'cmd');
    expect(topic).toBe('edge/fleet/tenant-1/appliance-1/cmd');
    expect(parseFleetTopic(topic)).toEqual({
      prefix: 'edge',
      tenantId: 'tenant-1',
      applianceId: 'appliance-1',
      channel: 'cmd',
    });
    expect(fleetFilter('ack')).toBe('edge/fleet/+/+/ack');
    expect(parseFleetTopic('edge/fleet/t/a/unknown')).toBeUndefined();
  });

  it('matches filters as MQTT does', () => {
    expect(topicMatches('a/+/c', 'a/b/c')).toBe(true);
    expect(topicMatches('a/+/c', 'a/b/c/d')).toBe(false);
    expect(topicMatches('a/#', 'a/b/c')).toBe(true);
    expect(topicMatches('a/#', 'a')).toBe(true);
    expect(topicMatches('#', 'x/y')).toBe(true);
    expect(topicMatches('a/b', 'a/b')).toBe(true);
    expect(topicMatches('a/b', 'a/c')).toBe(false);
    expect(topicMatches('a/+', 'a')).toBe(false);
  });
});
