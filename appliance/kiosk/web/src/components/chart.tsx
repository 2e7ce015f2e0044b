/**
 * uPlot in a Preact component: made once, given new data with setData, sized to its box. Colours
 * suit the dark theme; axes are light grey.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  stroke: string;
  fill?: string;
  scale?: string;
  width?: number;
  dash?: number[];
}

export const AXIS: uPlot.Axis = {
  stroke: '#c9d1d9',
  font: '15px system-ui, sans-serif',
  labelFont: '600 15px system-ui, sans-serif',
  grid: { stroke: '#2a3441', width: 1 },
  ticks: { stroke: '#2a3441' },
};

/** The time axis: wider apart ticks than uPlot's default, for the larger type. */
export const X_AXIS: uPlot.Axis = { ...AXIS, space: 100 };

export interface ChartProps {
  label: string;
  data: uPlot.AlignedData;
  series: ChartSeries[];
  height: number;
  /** A compact line without axes or legend, for a table row. */
  sparkline?: boolean;
  /** uPlot's legend under the chart (off for small charts that write their own key). */
  legend?: boolean;
  /** Horizontal guide lines (a fridge's limits), drawn dashed. */
  guides?: Array<{ value: number; stroke: string }>;
  axes?: uPlot.Axis[];
  scales?: uPlot.Scales;
}

/** A y range that also shows the guide lines, with a little room around. */
function rangeWith(values: number[]): uPlot.Range.Function {
  return (_u, min, max) => {
    const all = [...values, ...[min, max].filter((v) => v !== null && Number.isFinite(v))];
    const lo = Math.min(...all);
    const hi = Math.max(...all);
    const pad = (hi - lo) * 0.1 || 1;
    return [lo - pad, hi + pad];
  };
}

function options(props: ChartProps, width: number): uPlot.Options {
  const guides = props.guides ?? [];
  const values = guides.map((g) => g.value);
  return {
    width,
    height: props.height,
    legend: { show: !props.sparkline && props.legend !== false },
    cursor: { show: !props.sparkline, drag: { x: false, y: false } },
    scales: props.scales ?? {
      x: { time: true },
      ...(values.length > 0 ? { y: { range: rangeWith(values) } } : {}),
    },
    axes: props.sparkline ? [{ show: false }, { show: false }] : (props.axes ?? [X_AXIS, AXIS]),
    series: [
      {},
      ...props.series.map((s) => ({
        label: s.label,
        stroke: s.stroke,
        fill: s.fill,
        scale: s.scale,
        width: s.width ?? 2,
        dash: s.dash,
        points: { show: false },
      })),
    ],
    hooks: {
      draw: [
        (u: uPlot) => {
          for (const guide of guides) {
            const y = u.valToPos(guide.value, 'y', true);
            u.ctx.save();
            u.ctx.strokeStyle = guide.stroke;
            u.ctx.setLineDash([6, 4]);
            u.ctx.beginPath();
            u.ctx.moveTo(u.bbox.left, y);
            u.ctx.lineTo(u.bbox.left + u.bbox.width, y);
            u.ctx.stroke();
            u.ctx.restore();
          }
        },
      ],
    },
  };
}

export function Chart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);

  // Made once per mount; the options do not change for a chart's life.
  useEffect(() => {
    const element = box.current!;
    plot.current = new uPlot(options(props, element.clientWidth || 300), props.data, element);
    const resize = new ResizeObserver(() =>
      plot.current?.setSize({ width: element.clientWidth || 300, height: props.height }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = undefined;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData(props.data);
  }, [props.data]);

  return (
    <div
      class={props.sparkline ? 'chart sparkline' : 'chart'}
      ref={box}
      role="img"
      aria-label={props.label}
    />
  );
}
