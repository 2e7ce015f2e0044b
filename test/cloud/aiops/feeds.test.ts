import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  metricName,
  syncSamples,
  telemetrySamples,
  visionSamples,
} from '../../../cloud/flows/aiops-metrics.ts';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import type { Change } from '../../../shared/sync/protocol.ts';
import { backends } from '../../support/stores.ts';
import { type AiopsCloud, aiopsCloud, BASE, expectOk } from './aiops-cloud.ts';

const MINUTE = 60_000;

describe('feed parsing', () => {
  it('reads telemetry minutes, vision minutes and queue reports as samples', () => {
    const at = '2026-05-04T10:00:00.000Z';
    expect(
      telemetrySamples([
        {
          id: 'm1',
          device_id: 'dev-1',
          minute: at,
          metrics: JSON.stringify({
            'Temperature C': { count: 2, min: 3, max: 5, avg: 4, last: 5 },
            note: 'x',
          }),
        },
        { id: 'm2', device_id: 'dev-1', minute: 'not a time', metrics: '{}' },
      ]),
    ).toEqual([{ metric: 'temperature_c', subject: 'dev-1', at, value: 4 }]);
    expect(
      visionSamples([
        {
          id: 'v1',
          camera_id: 'cam-1',
          minute: at,
          metrics: { camera_fps: 14.5, inference_ms: { p99: 120 } },
        },
      ]),
    ).toEqual([
      { metric: 'camera_fps', subject: 'cam-1', at, value: 14.5 },
      { metric: 'inference_latency_p99', subject: 'cam-1', at, value: 120 },
    ]);
    expect(
      syncSamples('loc-1', { queue_depth: 40, oldest_pending_at: '2026-05-04T09:59:30.000Z' }, at),
    ).toEqual([
      { metric: 'sync_queue_depth', subject: 'loc-1', at, value: 40 },
      { metric: 'sync_lag_seconds', subject: 'loc-1', at, value: 30 },
    ]);
    expect(syncSamples('loc-1', {}, at)).toEqual([]);
    expect(metricName('9 GPU-Util %')).toBe('gpu_util_');
  });
});

describe.each(backends)('aiops feeds from sync on %s', (backend) => {
  let context: AiopsCloud;
  let credential: string;
  const hlc = createHlc('appliance-aiops');
  beforeAll(async () => {
    context = await aiopsCloud(backend);
    const { cloud, a } = context;
    credential = (
      await cloud.services.sync.provisionAppliance(a.tenant.id, { location_id: a.location.id, name: 'A' })
    ).credential;
  });
  afterAll(() => context.cloud.close());

  const change = (table: string, fields: Record<string, unknown>): Change => ({
    change_id: newId(),
    table,
    row_id: fields.id as string,
    op: 'insert',
    base_version: 0,
    version: 1,
    hlc: hlc.tick(),
    fields,
  });

  it('records device telemetry, vision minutes and the sync queue a store pushes', async () => {
    const { cloud, a } = context;
    const minute = new Date(cloud.clock.now().getTime() - MINUTE).toISOString();
    const response = await cloud.app.inject({
      method: 'POST',
      url: '/v1/sync/push',
      headers: { authorization: `Appliance ${credential}` },
      payload: {
        changes: [
          change('device_telemetry_minutes', {
            id: newId(),
            device_id: 'fridge-1',
            location_id: a.location.id,
            minute,
            samples: 2,
            metrics: JSON.stringify({ temperature_c: { count: 2, min: 3, max: 5, avg: 4, last: 5 } }),
          }),
          change('vision_model_minutes', {
            id: newId(),
            camera_id: 'cam-1',
            model_id: 'yolo',
            model_version: '1',
            minute,
            metrics: JSON.stringify({ camera_fps: 15, inference_ms: { p99: 80 } }),
          }),
        ],
        queue_depth: 12,
        oldest_pending_at: new Date(cloud.clock.now().getTime() - 20_000).toISOString(),
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    await cloud.services.aiops.drain();
    const points = await cloud.store.db
      .selectFrom('aiops_metric_points')
      .select(['metric', 'subject', 'value'])
      .where('tenant_id', '=', a.tenant.id)
      .orderBy('metric')
      .execute();
    expect(points.map((p) => ({ ...p, value: Number(p.value) }))).toEqual([
      { metric: 'camera_fps', subject: 'cam-1', value: 15 },
      { metric: 'inference_latency_p99', subject: 'cam-1', value: 80 },
      { metric: 'sync_lag_seconds', subject: a.location.id, value: 20 },
      { metric: 'sync_queue_depth', subject: a.location.id, value: 12 },
      { metric: 'temperature_c', subject: 'fridge-1', value: 4 },
    ]);
    expect(expectOk(await context.adminB('GET', `${BASE}/insights`)).insights).toEqual([]);
  });
});
