/**
 * A device's temperature over the last hour for its sparkline: managers read the telemetry
 * endpoint (managers only, as on the broker); for staff the kiosk keeps the readings it has seen
 * in the devices topic since the page opened.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../session.ts';
import type { Device, Telemetry } from '../../types.ts';

export const TEMPERATURE_METRICS = ['temperature_c', 'temperature'] as const;

export type Points = Array<{ at: number; value: number }>;

const HOUR_MS = 3_600_000;
const seen = new Map<string, Points>();

export function temperatureOf(device: Device): number | undefined {
  for (const metric of TEMPERATURE_METRICS) {
    const value = device.last_telemetry?.[metric];
    if (typeof value === 'number') return value;
  }
  return undefined;
}

/** Remembers a device's latest reading (once per reading time), an hour's worth. */
export function remember(device: Device) {
  const value = temperatureOf(device);
  if (value === undefined || !device.last_telemetry_at) return;
  const at = Date.parse(device.last_telemetry_at);
  const points = seen.get(device.id) ?? [];
  if (points.at(-1)?.at === at) return;
  seen.set(device.id, [...points.filter((p) => p.at > at - HOUR_MS), { at, value }]);
}

async function fromTelemetry(deviceId: string): Promise<Points> {
  const t = await api.get<Telemetry>(`/v1/devices/${encodeURIComponent(deviceId)}/telemetry?period=1h`);
  const metric = TEMPERATURE_METRICS.map((m) => t.metrics[m]).find((m) => m !== undefined);
  return (metric?.points ?? []).map((p) => ({ at: Date.parse(p.at), value: p.value }));
}

export function useTemperature(device: Device, manager: boolean): Points {
  const [points, setPoints] = useState<Points>([]);
  const hasTemperature = temperatureOf(device) !== undefined;
  const stamp = device.last_telemetry_at;

  useEffect(() => {
    if (!hasTemperature || manager) return;
    remember(device);
    setPoints(seen.get(device.id) ?? []);
  }, [device, hasTemperature, manager, stamp]);

  useEffect(() => {
    if (!hasTemperature || !manager) return;
    let active = true;
    const read = () =>
      fromTelemetry(device.id)
        .then((p) => active && setPoints(p))
        .catch(() => undefined);
    void read();
    const timer = setInterval(read, 60_000);
    return () => {
      active = false;
      clearInterval(timer);
    };
  }, [device.id, hasTemperature, manager]);

  return points;
}
