/** The footprint report: its goals, judged on a valid run only, and the lines the runner prints. */
import type { CodeVersion, MachineInfo } from '../lib/report.ts';
import type { ApplianceMeasures } from './appliance.ts';
import type { Bundles } from './build.ts';
import type { CloudMeasures } from './cloud.ts';
import type { FootprintPlan } from './plan.ts';
import type { TreeWindow } from './tree.ts';

export interface FootprintGoal {
  name: string;
  target: string;
  value: number | null;
  met: boolean;
}

export interface FootprintReport {
  name: 'footprint';
  at: string;
  machine: MachineInfo;
  code: CodeVersion;
  method: Record<string, string>;
  settings: {
    plan: 'full' | 'quick';
    sizes: FootprintPlan;
    node_flags: readonly string[];
    bundles: Bundles | null;
  };
  valid: boolean;
  problems: string[];
  notes: string[];
  baseline: { bare_node: TreeWindow | null };
  appliance: ApplianceMeasures | null;
  cloud: CloudMeasures | null;
  /** Figures without a goal, for the record: peaks of the other measures. */
  other: Record<string, number | null>;
  goals: FootprintGoal[];
}

type Figures = Pick<FootprintReport, 'appliance' | 'cloud'>;

const GOALS: Array<{ name: string; target: string; max: number; value(r: Figures): number | undefined }> = [
  {
    name: 'appliance idle, peak RSS (MB)',
    target: '<= 150',
    max: 150,
    value: (r) => r.appliance?.idle.peak.total_mb,
  },
  {
    name: 'appliance with eight cameras, peak RSS with ffmpeg children (MB)',
    target: '<= 500',
    max: 500,
    value: (r) => r.appliance?.cameras?.window.peak.total_mb,
  },
  {
    name: 'cloud idle, peak RSS (MB)',
    target: '<= 200',
    max: 200,
    value: (r) => r.cloud?.idle.peak.total_mb,
  },
];

export function goalsOf(report: Figures & { valid: boolean }): FootprintGoal[] {
  return GOALS.map((goal) => {
    const value = goal.value(report) ?? null;
    return {
      name: goal.name,
      target: goal.target,
      value,
      met: report.valid && value !== null && value <= goal.max,
    };
  });
}

export function otherFigures(report: Figures): Record<string, number | null> {
  const { appliance, cloud } = report;
  return {
    appliance_idle_median_mb: appliance?.idle.median_mb ?? null,
    appliance_burst_peak_mb: appliance?.burst.window.peak.total_mb ?? null,
    mosquitto_burst_peak_mb: appliance?.mosquitto_burst?.window.peak.total_mb ?? null,
    appliance_cameras_process_mb: appliance?.cameras?.window.peak.root_mb ?? null,
    appliance_cameras_ffmpeg_mb: appliance?.cameras?.window.peak.children.ffmpeg?.mb ?? null,
    appliance_cameras_pss_mb: appliance?.cameras?.window.pss_at_peak_mb ?? null,
    launcher_mb: appliance?.launcher_rss_mb ?? null,
    cloud_idle_median_mb: cloud?.idle.median_mb ?? null,
    cloud_load_peak_mb: cloud?.load.window.peak.total_mb ?? null,
  };
}

const mb = (value: number | null | undefined) =>
  value === null || value === undefined ? '-' : `${value} MB`;

function applianceLines(appliance: ApplianceMeasures | null) {
  if (!appliance) return ['appliance: not measured'];
  const { idle, burst, mosquitto_burst: mosquitto, cameras } = appliance;
  const ffmpeg = cameras?.window.peak.children.ffmpeg;
  return [
    `appliance idle: peak ${mb(idle.peak.total_mb)}, median ${mb(idle.median_mb)} (launcher beside it ${mb(appliance.launcher_rss_mb)})`,
    `appliance broker burst (${burst.result.acknowledged} QoS 1 in ${burst.result.seconds} s): peak ${mb(burst.window.peak.total_mb)}` +
      (mosquitto
        ? `; mosquitto ${mosquitto.version} same burst: peak ${mb(mosquitto.window.peak.total_mb)}`
        : ''),
    cameras
      ? `appliance ${cameras.cameras.length} cameras: peak ${mb(cameras.window.peak.total_mb)} (process ${mb(cameras.window.peak.root_mb)}, ${ffmpeg?.count ?? 0} ffmpeg ${mb(ffmpeg?.mb)}; PSS ${mb(cameras.window.pss_at_peak_mb)})`
      : 'appliance cameras: not measured',
  ];
}

function cloudLines(cloud: CloudMeasures | null) {
  if (!cloud) return ['cloud: not measured'];
  const { idle, load } = cloud;
  return [
    `cloud idle: peak ${mb(idle.peak.total_mb)}, median ${mb(idle.median_mb)}`,
    `cloud load (${load.requests_per_sec} req/s, ${load.sync.rounds} sync rounds of ${load.sync.orders} orders): peak ${mb(load.window.peak.total_mb)}`,
  ];
}

export function summarizeFootprint(report: FootprintReport): string[] {
  return [
    `footprint (${report.settings.plan}), commit ${report.code.commit}${report.code.product_changes_uncommitted ? ' (uncommitted changes)' : ''}, load ${report.machine.load_1m.before}/${report.machine.load_1m.after}`,
    `baseline bare node: peak ${mb(report.baseline.bare_node?.peak.total_mb)}`,
    ...applianceLines(report.appliance),
    ...cloudLines(report.cloud),
    ...report.goals.map((g) => `goal ${g.name} ${g.target}: ${g.value ?? '-'} ${g.met ? 'met' : 'NOT met'}`),
    ...report.problems.map((p) => `problem: ${p}`),
    ...report.notes.map((n) => `note: ${n}`),
    `valid: ${report.valid}`,
  ];
}
