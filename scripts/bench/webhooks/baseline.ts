/**
 * The ceiling: the cloud's own webhook sender (createOutbound, the undici agent and SSRF guard the
 * worker uses) POSTing signed-size envelopes to the receiver child as fast as it answers, one
 * request at a time per endpoint as a lane with max_in_flight 1 sends, no database anywhere.
 */

import { createOutbound } from '../../../cloud/webhooks/outbound.ts';
import { newId } from '../../../shared/ids.ts';
import { round } from '../lib/load.ts';
import { type Percentiles, percentiles } from './stats.ts';

export interface BaselineMeasurement {
  concurrency: number;
  requests: number;
  errors: number;
  seconds: number;
  requests_per_sec: number;
  latency_ms: Percentiles;
}

const WARMUP_MS = 1000;

/** About the size of a real order envelope: the receiver does the same work for it. */
function sampleBody(index: number) {
  return JSON.stringify({
    id: newId(),
    type: 'order.created',
    api_version: '2026-11-01',
    created_at: new Date().toISOString(),
    tenant_id: newId(),
    location_id: newId(),
    data: {
      id: newId(),
      number: String(index),
      order_type: 'dine_in',
      status: 'open',
      items: [
        { id: newId(), menu_item_id: newId(), name: 'Burger', quantity: 2, unit_price: 9.5, total: 19 },
        { id: newId(), menu_item_id: newId(), name: 'Fries', quantity: 1, unit_price: 3.5, total: 3.5 },
      ],
      subtotal: 22.5,
      tax: 1.8,
      total: 24.3,
      created_at: new Date().toISOString(),
    },
  });
}

const headersFor = () => ({
  'content-type': 'application/json',
  'user-agent': 'EdgeApplianceWebhooks/1.0 (+https://docs.example/webhooks)',
  'x-service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'ab'.repeat(32)}`,
  'x-service-event': 'order.created',
  'x-service-delivery': newId(),
  'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
});

export async function measureBaseline(ports: number[], seconds: number): Promise<BaselineMeasurement> {
  const outbound = createOutbound({ allowPrivate: true });
  const latencies: number[] = [];
  let errors = 0;
  let measuring = false;
  let stop = false;
  async function lane(index: number) {
    const url = `http://127.0.0.1:${ports[index]}/ok/${index}`;
    const body = sampleBody(index);
    while (!stop) {
      const started = performance.now();
      const result = await outbound.send({ url, headers: headersFor(), body, timeoutMs: 5000 });
      if (!measuring) continue;
      if (result.kind === 'error' || result.status !== 200) errors += 1;
      else latencies.push(performance.now() - started);
    }
  }
  try {
    const lanes = ports.map((_, index) => lane(index));
    await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
    measuring = true;
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    measuring = false;
    const elapsed = (performance.now() - started) / 1000;
    stop = true;
    await Promise.all(lanes);
    return {
      concurrency: ports.length,
      requests: latencies.length,
      errors,
      seconds: round(elapsed, 2),
      requests_per_sec: round(latencies.length / elapsed, 0),
      latency_ms: percentiles(latencies),
    };
  } finally {
    stop = true;
    await outbound.close();
  }
}
