import { useMemo } from 'preact/hooks';
import { AXIS, Chart, X_AXIS } from '../../components/chart.tsx';
import type { LaneBucket } from '../../types.ts';

/** Queue length (cars, left axis) and average wait (minutes, right axis) over the shift. */
export function QueueChart(props: { buckets: LaneBucket[] }) {
  const data = useMemo(
    () =>
      [
        props.buckets.map((b) => Date.parse(b.at) / 1000),
        props.buckets.map((b) => b.queue_length_avg),
        props.buckets.map((b) => (b.wait_seconds_avg === null ? null : b.wait_seconds_avg / 60)),
      ] as [number[], Array<number | null>, Array<number | null>],
    [props.buckets],
  );
  return (
    <Chart
      label="Queue length and wait over the shift"
      data={data}
      height={240}
      scales={{
        x: { time: true },
        cars: { range: (_u, _min, max) => [0, Math.max(4, max ?? 0)] },
        min: { range: (_u, _min, max) => [0, Math.max(1, max ?? 0)] },
      }}
      axes={[
        X_AXIS,
        { ...AXIS, scale: 'cars', label: 'cars' },
        { ...AXIS, scale: 'min', side: 1, label: 'min', grid: { show: false } },
      ]}
      series={[
        { label: 'Queue (cars)', stroke: '#4ea1ff', fill: 'rgba(78,161,255,0.15)', scale: 'cars' },
        { label: 'Wait (min)', stroke: '#ffb020', scale: 'min' },
      ]}
    />
  );
}
