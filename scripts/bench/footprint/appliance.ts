/**
 * The compiled appliance's footprint: started by the release's launcher from an empty data dir as
 * a new store (configured through its environment, the device TLS listener on the bench's device
 * CA, no camera), then idle, under a burst of QoS 1 telemetry from real device clients, and with
 * eight cameras playing clips through ffmpeg. Mosquitto takes the same burst for comparison.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { forkLoadProcess } from '../mqtt/control.ts';
import { MOSQUITTO_MISSING, mosquittoVersion, startMosquitto } from '../mqtt/mosquitto.ts';
import { clientSpecs, createIdentities, type Identities, LOCATION } from '../mqtt/targets.ts';
import { ensureClips } from '../vision/clips.ts';
import { FULL_PLAN as VISION_PLAN } from '../vision/plan.ts';
import type { Bundles } from './build.ts';
import type { BurstResult, DeviceRequest } from './devices.ts';
import { call, loginToken } from './http.ts';
import { CLIP, type FootprintPlan } from './plan.ts';
import { type Started, sleep, startCompiled } from './process.ts';
import { FOOTPRINT_MANAGER } from './seed-manager.ts';
import { peakRssMb, readTree, sampleTree, type TreeWindow } from './tree.ts';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEVICES = fileURLToPath(new URL('./devices.ts', import.meta.url));
const SEED_MANAGER = fileURLToPath(new URL('./seed-manager.ts', import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');
const CAMERAS_RUNNING_TIMEOUT_MS = 120_000;

export interface BurstMeasure {
  window: TreeWindow;
  result: BurstResult;
  expected: number;
}

export interface CameraMeasure {
  window: TreeWindow;
  cameras: Array<{ id: string; state: string; fps: number }>;
  clip: { files: number; seconds: number; size: string; fps: number };
}

export interface ApplianceMeasures {
  launcher_rss_mb: number;
  idle: TreeWindow;
  burst: BurstMeasure;
  mosquitto_burst: (BurstMeasure & { version: string }) | null;
  cameras: CameraMeasure | null;
  /** VmHWM of the appliance process alone at the end: its own peak over the whole run. */
  appliance_hwm_mb: number;
  warnings: { count: number; last: string[] };
  notes: string[];
  problems: string[];
}

function applianceEnv(dataDir: string, certDir: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    TENANT_ID: '01900000-0000-7000-8000-0000000000a5',
    LOCATION_ID: LOCATION,
    APPLIANCE_DATA_DIR: dataDir,
    APPLIANCE_HOST: '127.0.0.1',
    APPLIANCE_PORT: '0',
    APPLIANCE_MQTT_TLS_PORT: '0',
    APPLIANCE_MQTT_TLS_KEY: join(certDir, 'server.key'),
    APPLIANCE_MQTT_TLS_CERT: join(certDir, 'server.crt'),
    APPLIANCE_MQTT_TLS_CA: join(certDir, 'ca.crt'),
    // The bundle sits in a layout of its own: the repository's models and kiosk build, by name.
    APPLIANCE_MODELS_DIR: join(REPO_ROOT, 'models'),
    APPLIANCE_KIOSK_DIR: join(REPO_ROOT, 'appliance/kiosk/web/dist'),
  };
}

/** A burst from `url`'s devices while `pid`'s tree is sampled, and a few seconds after it. */
async function burstInto(
  pid: number,
  url: string,
  identities: Identities,
  plan: FootprintPlan,
  tls: boolean,
) {
  const devices = await forkLoadProcess<DeviceRequest>(DEVICES);
  try {
    const { publishers } = clientSpecs(identities, url, tls);
    await devices.request({ op: 'connect', devices: publishers.slice(0, plan.burst.devices) });
    const stopSampling = sampleTree(pid);
    const result = await devices.request<BurstResult>({
      op: 'burst',
      perDevice: plan.burst.perDevice,
      window: plan.burst.window,
    });
    await sleep(plan.afterBurstSeconds * 1000);
    const window = stopSampling();
    await devices.request({ op: 'disconnect' });
    return { window, result, expected: plan.burst.devices * plan.burst.perDevice };
  } finally {
    await devices.stop();
  }
}

async function mosquittoBurst(workDir: string, identities: Identities, plan: FootprintPlan) {
  const version = mosquittoVersion();
  if (version === undefined) return null;
  const mosquitto = await startMosquitto(workDir);
  try {
    const measure = await burstInto(
      mosquitto.pid,
      `mqtt://127.0.0.1:${mosquitto.port}`,
      identities,
      plan,
      false,
    );
    return { ...measure, version };
  } finally {
    await mosquitto.stop();
  }
}

async function seedManager(env: Record<string, string>) {
  await promisify(execFile)(process.execPath, ['--import', TSX_LOADER, SEED_MANAGER], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
}

type CameraStatus = { id: string; state: string; fps: number };

async function cameraStatuses(base: string, token: string) {
  const answer = await call<{ data: { cameras: CameraStatus[] } }>(base, 'GET', '/v1/vision/cameras/status', {
    token,
  });
  return answer.data.cameras.map(({ id, state, fps }) => ({ id, state, fps }));
}

async function allRunning(base: string, token: string, count: number) {
  const deadline = Date.now() + CAMERAS_RUNNING_TIMEOUT_MS;
  for (;;) {
    const cameras = await cameraStatuses(base, token);
    const running = cameras.filter((camera) => camera.state === 'running');
    if (running.length === count) return;
    if (Date.now() > deadline)
      throw new Error(
        `cameras not all running after ${CAMERAS_RUNNING_TIMEOUT_MS} ms: ${JSON.stringify(cameras)}`,
      );
    await sleep(1000);
  }
}

async function measureCameras(base: string, pid: number, env: Record<string, string>, plan: FootprintPlan) {
  const clips = await ensureClips({ ...VISION_PLAN, clip: CLIP }, plan.cameras);
  await seedManager(env);
  const token = await loginToken(base, '/v1/auth/login/pin', FOOTPRINT_MANAGER);
  for (const [i, file] of clips.files.entries()) {
    await call(base, 'POST', '/v1/vision/cameras', {
      token,
      body: {
        id: `lane-${i + 1}`,
        name: `Lane ${i + 1}`,
        type: 'drive_thru_lane',
        source_url: `file://${file}`,
      },
    });
  }
  await allRunning(base, token, plan.cameras);
  await sleep(plan.cameraWarmupSeconds * 1000);
  const stopSampling = sampleTree(pid);
  await sleep(plan.cameraSeconds * 1000);
  const window = stopSampling();
  const cameras = await cameraStatuses(base, token);
  const clip = { files: clips.files.length, seconds: clips.seconds, size: clips.size, fps: clips.fps };
  return { window, cameras, clip };
}

function cameraProblems(measure: CameraMeasure, plan: FootprintPlan) {
  const stalled = measure.cameras.filter((camera) => camera.state !== 'running' || camera.fps <= 0);
  const problems = stalled.map(
    (camera) => `camera ${camera.id}: ${camera.state} at ${camera.fps} fps at the window's end`,
  );
  const ffmpeg = measure.window.peak.children.ffmpeg?.count ?? 0;
  if (ffmpeg < plan.cameras) problems.push(`${ffmpeg} ffmpeg children at the peak, not ${plan.cameras}`);
  return problems;
}

const burstProblems = (name: string, burst: BurstMeasure) =>
  burst.result.acknowledged === burst.expected && burst.result.errors === 0
    ? []
    : [
        `${name}: ${burst.result.acknowledged} of ${burst.expected} acknowledged, ${burst.result.errors} errors (${burst.result.first_error})`,
      ];

async function measureStarted(
  app: Started,
  launcherPid: number,
  context: Context,
): Promise<ApplianceMeasures> {
  const { plan, identities, workDir, env } = context;
  const pid = Number(app.ready.pid);
  const base = `http://127.0.0.1:${app.ready.port}`;
  await sleep(plan.settleSeconds * 1000);
  const stopIdle = sampleTree(pid);
  await sleep(plan.idleSeconds * 1000);
  const idle = stopIdle();
  const launcherRss = readTree(launcherPid, performance.now()).root_mb;
  const burst = await burstInto(pid, `mqtts://127.0.0.1:${app.ready.mqttTls}`, identities, plan, true);
  const mosquitto = await mosquittoBurst(workDir, identities, plan);
  const notes = mosquitto ? [] : [MOSQUITTO_MISSING];
  const problems = [
    ...burstProblems('appliance burst', burst),
    ...(mosquitto ? burstProblems('mosquitto burst', mosquitto) : []),
  ];
  let cameras: CameraMeasure | null = null;
  if (plan.cameras > 0) {
    cameras = await measureCameras(base, pid, env, plan);
    problems.push(...cameraProblems(cameras, plan));
  }
  return {
    launcher_rss_mb: launcherRss,
    idle,
    burst,
    mosquitto_burst: mosquitto,
    cameras,
    appliance_hwm_mb: peakRssMb(pid),
    warnings: app.warnings(),
    notes,
    problems,
  };
}

interface Context {
  plan: FootprintPlan;
  identities: Identities;
  workDir: string;
  env: Record<string, string>;
}

export async function measureAppliance(bundles: Bundles, plan: FootprintPlan): Promise<ApplianceMeasures> {
  const workDir = await mkdtemp(join(tmpdir(), 'bench-footprint-appliance-'));
  try {
    const certDir = join(workDir, 'certs');
    const dataDir = join(workDir, 'data');
    await mkdir(certDir);
    const identities = await createIdentities(plan.burst.devices, certDir);
    const env = applianceEnv(dataDir, certDir);
    // As systemd starts a release: Node alone on the launcher, which starts the appliance with its flags.
    const app = await startCompiled(
      [bundles.files.launcher],
      env,
      (line) => line.msg === 'appliance listening',
    );
    try {
      return await measureStarted(app, app.pid, { plan, identities, workDir, env });
    } finally {
      await app.stop();
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
