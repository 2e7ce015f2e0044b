/**
 * uPlot in a Preact component: made once, given new data with setData, sized to its box. The chart
 * is a picture to the screen reader (role img with the label); every chart in the console sits
 * beside a table with the same figures.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  stroke: string;
  fill?: string;
  /** Bars instead of a line. */
  bars?: boolean;
  dash?: number[];
}

export const PALETTE = ['#2563eb', '#16a34a', '#d97706', '#dc2626', '#7c3aed', '#0891b2', '#db2777'];

const AXIS: uPlot.Axis = {
  stroke: '#374151',
  font: '12px system-ui, sans-serif',
  grid: { stroke: '#e5e7eb', width: 1 },
  ticks: { stroke: '#e5e7eb' },
};

export interface ChartProps {
  label: string;
  data: uPlot.AlignedData;
  series: ChartSeries[];
  height?: number;
  /** The x values are Unix seconds (a time axis); otherwise category indexes named by xLabels. */
  time?: boolean;
  xLabels?: string[];
  formatY?: (value: number) => string;
}

function options(props: ChartProps, width: number): uPlot.Options {
  const bars = uPlot.paths.bars?.({ size: [0.6, 40] });
  const xAxis: uPlot.Axis = props.time
    ? { ...AXIS, space: 80 }
    : { ...AXIS, space: 40, values: (_u, splits) => splits.map((i) => props.xLabels?.[i] ?? '') };
  return {
    width,
    height: props.height ?? 220,
    scales: { x: { time: props.time ?? false } },
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    axes: [
      xAxis,
      {
        ...AXIS,
        size: 64,
        values: (_u, splits) => splits.map((v) => (props.formatY ? props.formatY(v) : String(v))),
      },
    ],
    series: [
      {},
      ...props.series.map((s) => ({
        label: s.label,
        stroke: s.stroke,
        fill: s.fill ?? (s.bars ? s.stroke : undefined),
        width: 2,
        dash: s.dash,
        ...(s.bars && bars ? { paths: bars, points: { show: false } } : {}),
      })),
    ],
  };
}

export function Chart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = props.series.map((s) => s.label).join('|');

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    plot.current = new uPlot(options(props, Math.max(200, el.clientWidth)), props.data, el);
    const observer = new ResizeObserver(() => {
      plot.current?.setSize({ width: Math.max(200, el.clientWidth), height: props.height ?? 220 });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape, props.xLabels?.join('|')]);

  useEffect(() => {
    plot.current?.setData(props.data);
  }, [props.data]);

  return <div class="chart" ref={box} role="img" aria-label={props.label} />;
}
