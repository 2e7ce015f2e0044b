/**
 * The API process of the camera pipeline benchmark, as the appliance would run it: a Fastify
 * server (the appliance's server options, request logs off) answering the cameras' figures on
 * `GET /api/vision/cameras` and its status on `GET /api/status`, the shared detector in its worker thread, and the cameras' pipelines
 * with their ffmpeg children, all in this one process. Measures its own event-loop delay
 * (perf_hooks.monitorEventLoopDelay). Driven by the bench over IPC (./protocol.ts); the bench
 * reads this process's CPU from /proc. Compiled and run by Node alone with the appliance's flags.
 */
import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { createDetector, type Detector } from '../../../appliance/vision/detect/detector.ts';
import { loadModel } from '../../../appliance/vision/detect/model.ts';
import { serverOptions } from '../../../shared/http/server-options.ts';
import { serveRequests } from '../mqtt/control.ts';
import { runBaseline } from './baseline.ts';
import { createCameraRig } from './pipelines.ts';
import type { ApiRequest, InitReply, InitRequest, WindowReply } from './protocol.ts';
import { delayPercentiles } from './stats.ts';

const Nullable = <T extends ReturnType<typeof Type.Number>>(schema: T) => Type.Union([schema, Type.Null()]);

const CameraFiguresSchema = Type.Object({
  camera_id: Type.String(),
  status: Type.String(),
  camera_fps: Type.Number(),
  detection_fps: Type.Number(),
  frames_read: Type.Integer(),
  frames_dropped: Type.Integer(),
  frames_skipped_by_motion: Type.Integer(),
  frames_inferred: Type.Integer(),
  detections: Type.Integer(),
  inference_latency_ms: Type.Object({ p50: Nullable(Type.Number()), p99: Nullable(Type.Number()) }),
  capture_to_result_ms: Type.Object({
    p50: Nullable(Type.Number()),
    p95: Nullable(Type.Number()),
    p99: Nullable(Type.Number()),
  }),
  last_detection: Type.Union([Type.String(), Type.Null()]),
});

const EVENT_LOOP_RESOLUTION_MS = 10;
const KEPT_WARNINGS = 5;

const delay = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
delay.enable();

// Warnings (a frame not processed, a source offline) make the run suspect: counted, the last kept.
const warnings = { count: 0, last: [] as string[] };
const log = pino(
  { level: 'info' },
  {
    write(line: string) {
      const entry = JSON.parse(line) as {
        level: number;
        msg?: string;
        reason?: string;
        err?: { message?: string };
      };
      if (entry.level < 40) return;
      warnings.count += 1;
      const detail = entry.err?.message ?? entry.reason ?? '';
      warnings.last = [...warnings.last, `${entry.msg ?? ''}${detail ? `: ${detail}` : ''}`].slice(
        -KEPT_WARNINGS,
      );
    },
  },
);

const threadIds = () => new Set(readdirSync('/proc/self/task').map(Number));

interface Started {
  app: FastifyInstance;
  detector: Detector;
  rig: ReturnType<typeof createCameraRig>;
}

let started: Started | undefined;
let served = 0;
let markedAt = performance.now();

async function init(request: InitRequest): Promise<InitReply> {
  const model = await loadModel(request.model);
  const before = threadIds();
  const detector = await createDetector(model, { maxBatch: request.maxBatch, log });
  const detectorTids = [...threadIds()].filter((tid) => !before.has(tid));
  const rig = createCameraRig(detector, log);
  const app = Fastify(serverOptions(false));
  app.get(
    '/api/vision/cameras',
    { schema: { response: { 200: Type.Object({ cameras: Type.Array(CameraFiguresSchema) }) } } },
    async () => {
      served += 1;
      return { cameras: rig.metrics() };
    },
  );
  app.get(
    '/api/status',
    { schema: { response: { 200: Type.Object({ status: Type.String(), cameras: Type.Integer() }) } } },
    async () => {
      served += 1;
      return { status: 'ok', cameras: rig.count };
    },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  started = { app, detector, rig };
  return {
    pid: process.pid,
    port: typeof address === 'object' && address ? address.port : 0,
    detector_tids: detectorTids,
    model: {
      name: model.manifest.name,
      version: model.manifest.version,
      input_size: model.manifest.input.size,
      classes: model.manifest.classes,
    },
  };
}

function running(): Started {
  if (!started) throw new Error('the API process is not initialised');
  return started;
}

function mark() {
  running().rig.mark();
  delay.reset();
  served = 0;
  warnings.count = 0;
  warnings.last = [];
  markedAt = performance.now();
  return null;
}

function collect(): WindowReply {
  const seconds = (performance.now() - markedAt) / 1000;
  return {
    seconds: Number(seconds.toFixed(3)),
    event_loop_delay_ms: delayPercentiles(delay, EVENT_LOOP_RESOLUTION_MS),
    ...running().rig.collect(),
    http_requests_served: served,
    warnings: warnings.count,
    last_warnings: warnings.last,
  };
}

async function stop() {
  if (!started) return null;
  const { app, detector, rig } = started;
  started = undefined;
  await rig.stop();
  await detector.close();
  await app.close();
  return null;
}

serveRequests<ApiRequest>(async (request) => {
  switch (request.op) {
    case 'init':
      return init(request);
    case 'baseline':
      return runBaseline(running().detector, request);
    case 'start':
      running().rig.start(request);
      return null;
    case 'mark':
      return mark();
    case 'collect':
      return collect();
    case 'stop':
      return stop();
  }
});
