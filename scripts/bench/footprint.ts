/**
 * The footprint benchmark: resident memory of the compiled appliance (started by the release's
 * launcher, a new store) idle, under a broker burst and with eight cameras, its ffmpeg children
 * counted; and of the compiled cloud idle and under load. Baselines in the same run: a bare Node
 * process, and Mosquitto under the same burst. See docs/benchmarks.md.
 */
import { APPLIANCE_NODE_FLAGS } from '../build.ts';
import { measureAppliance } from './footprint/appliance.ts';
import { bareNode } from './footprint/baseline.ts';
import { type Bundles, buildBundles } from './footprint/build.ts';
import { LOADED_ROUTES, measureCloud } from './footprint/cloud.ts';
import { FULL_PLAN, QUICK_PLAN } from './footprint/plan.ts';
import { killStarted } from './footprint/process.ts';
import { type FootprintReport, goalsOf, otherFigures } from './footprint/report.ts';
import { codeVersion, machineSampler } from './lib/report.ts';
import { killLoadProcesses } from './mqtt/control.ts';

export { summarizeFootprint } from './footprint/report.ts';

export interface FootprintBenchOptions {
  quick?: boolean | undefined;
}

const METHOD = {
  rss: 'VmRSS from /proc/<pid>/status of the process and every descendant (found by parent pid in /proc), summed, every 250 ms over the window; worker threads (the detector, pino) are in their process. peak is the largest sum, with its breakdown by process; PSS (smaps_rollup, shared pages split between their users) of the same tree at that moment beside it.',
  appliance:
    'The release bundles (appliance, detection worker, launcher; scripts/build.ts bundle) in a layout of their own under dist/bench/footprint/. Node runs the launcher as systemd does; the launcher starts the appliance with APPLIANCE_NODE_FLAGS. Measured: the appliance process and its children (not the launcher, reported beside). New store: empty data dir, TENANT_ID/LOCATION_ID, the device TLS listener on the bench device CA, no cloud, no camera.',
  idle: 'After the ready line (appliance listening, cloud listening) and settle_seconds, idle_seconds sampled with no request.',
  burst:
    'devices fridge sensors (mqtt.js, MQTT 3.1.1, each its own device certificate) connected to the TLS listener, each publishing per_device JSON telemetry messages at QoS 1 with window outstanding; sampled from the first publish to after_burst_seconds after the last acknowledgement. Mosquitto (plain TCP, anonymous, no persistence) takes the same burst.',
  cameras:
    'A manager added to the store (seed-manager.ts, as staff sync would), signed in by PIN; cameras drive_thru_lane registered through POST /v1/vision/cameras, each playing its own copy of the camera benchmark lane clip (1280x720, 15 fps, H.264) through ffmpeg, settings at their defaults; once every camera is running, camera_warmup_seconds, then camera_seconds sampled.',
  cloud: `dist/cloud.mjs (npm run cloud:prod) on SQLite in a fresh DATA_DIR, rate limits off, a tenant and its tenant_admin made by the operator CLI before it starts. Load: autocannon (cloud_connections) cycling GET ${LOADED_ROUTES.join(', ')} as the admin, and a store (the appliance services and sync client in the bench process) writing orders_per_second orders then running a sync round every second; cloud_load_seconds sampled.`,
};

async function measureAll(options: FootprintBenchOptions, report: FootprintReport) {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  let bundles: Bundles;
  try {
    bundles = await buildBundles();
  } catch (error) {
    report.problems.push(`build failed: ${(error as Error).message}`);
    return;
  }
  report.settings.bundles = bundles;
  report.baseline.bare_node = await bareNode(plan.idleSeconds);
  try {
    report.appliance = await measureAppliance(bundles, plan);
    report.problems.push(...report.appliance.problems);
    report.notes.push(...report.appliance.notes);
  } catch (error) {
    report.problems.push(`appliance: ${(error as Error).message}`);
  }
  try {
    report.cloud = await measureCloud(bundles, plan);
    report.problems.push(...report.cloud.problems);
  } catch (error) {
    report.problems.push(`cloud: ${(error as Error).message}`);
  }
}

export async function runFootprintBench(options: FootprintBenchOptions): Promise<FootprintReport> {
  const machine = machineSampler();
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  const report: FootprintReport = {
    name: 'footprint',
    at: new Date().toISOString(),
    machine: machine(),
    code: codeVersion(),
    method: METHOD,
    settings: {
      plan: options.quick ? 'quick' : 'full',
      sizes: plan,
      node_flags: APPLIANCE_NODE_FLAGS,
      bundles: null,
    },
    valid: false,
    problems: [],
    notes: [],
    baseline: { bare_node: null },
    appliance: null,
    cloud: null,
    other: {},
    goals: [],
  };
  const killAll = () => {
    killStarted();
    killLoadProcesses();
  };
  process.on('exit', killAll);
  try {
    await measureAll(options, report);
  } finally {
    process.off('exit', killAll);
  }
  report.machine = machine();
  report.valid = report.problems.length === 0 && report.appliance !== null && report.cloud !== null;
  report.other = otherFigures(report);
  report.goals = goalsOf(report);
  return report;
}
