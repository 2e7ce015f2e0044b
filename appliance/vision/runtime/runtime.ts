/**
 * The camera pipelines of the store, run from the camera registry: one per enabled camera, started
 * at boot and restarted alone when its camera or settings change (the registry's change hook), so
 * other cameras carry on undisturbed. What they see becomes the vision tables (history.ts) the
 * local API and the cloud answer from: first sightings with snapshots, each car's visit through
 * the lane linked to the drive-thru order paid at the window, the lane's and the dining room's
 * state, each camera's figures by the minute with their alerts, and order verifications, run
 * when a drive-thru or takeout order is marked ready and on demand.
 */
import { relative } from 'node:path';
import cron from 'node-cron';
import type { Logger } from 'pino';
import type { Clock } from '../../../shared/clock.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import type { ApplianceDatabase, ChangeLog } from '../../db/index.ts';
import type { EventPoller } from '../../kitchen/index.ts';
import type { LocationService } from '../../location/index.ts';
import { type StatusChange, sourceKind } from '../capture/index.ts';
import type { LoadedModel } from '../detect/model.ts';
import type { LaneEvent } from '../drive-thru/lane.ts';
import { createOccupancy, type OccupancyRecord, utilization } from '../occupancy/index.ts';
import { type CameraPipeline, type CameraResult, createCameraPipeline } from '../pipeline/camera.ts';
import {
  createSnapshotStore,
  type SnapshotKind,
  type SnapshotStore,
  scheduleRetention,
} from '../record/index.ts';
import type { VisionCamera, VisionRegistry } from '../registry/index.ts';
import { type EffectiveSettings, parseSize } from '../settings/index.ts';
import { trackerOptionsFromSettings } from '../track/index.ts';
import type { Detection, Frame, TrackedObject } from '../types.ts';
import type { MenuMapping } from '../verify/index.ts';
import { createVisionAlerts } from './alerts.ts';
import type { VisionHistory } from './history.ts';
import { createLaneRecord, type LaneRecord } from './lane-record.ts';
import { laneZonesOf } from './lane-zones.ts';
import { createMinuteCollector, figureOf, type MinuteFigures, minuteOf, thresholdsFor } from './minutes.ts';
import { createModelPool, modelNameFor } from './models.ts';
import { createScreens } from './screens.ts';
import {
  createVerifier,
  expectedItems,
  VERIFY_TIMEOUT_MS,
  type VerifyRequest,
  VisionUnavailableError,
} from './verification.ts';

export { type VerifyRequest, VisionUnavailableError } from './verification.ts';

const VEHICLE_CLASSES = new Set(['vehicle', 'car', 'truck', 'bus', 'motorcycle']);
const PERSON_CLASSES = new Set(['person']);
/** How often each camera's live figures reach the registry (and the camera list). */
const STATUS_EVERY_MS = 1000;
/** A camera's synced state is rewritten at most this often for its figures alone. */
const CAMERA_STATE_EVERY_MS = 60_000;
const OCCUPANCY_MIN_MS = 2000;
/** A first sighting gets a snapshot at most this often per camera; the others are rows only. */
const SNAPSHOT_EVERY_MS = 2000;
const VERIFIED_ORDER_TYPES = new Set(['drive_thru', 'takeout']);

export interface VisionRuntimeOptions {
  /** Where a model's files are (the model store's current version, or the bundled one). */
  resolveModel(name: string): string;
  ffmpegPath?: string | undefined;
  snapshotsDir: string;
  snapshotBudgetBytes: number;
  diningCapacity: number;
  menuMapping: MenuMapping;
}

export interface VisionRuntimeDeps {
  db: ApplianceDatabase;
  changes: ChangeLog;
  registry: VisionRegistry;
  history: VisionHistory;
  /** The committed events (order ready, payment processed) the runtime acts on. */
  events: EventPoller;
  orders: { get(id: string): { order_type: string; items: Array<{ name: string; quantity: number }> } };
  /** The store's time zone and business day, for a shift's lane history. */
  location: Pick<LocationService, 'get'>;
  clock: Clock;
  newId: IdGenerator;
  locationId: string;
  log: Logger;
}

interface Run {
  camera: VisionCamera;
  settings: EffectiveSettings;
  model: string;
  modelVersion: string;
  pipeline: CameraPipeline;
  minutes: ReturnType<typeof createMinuteCollector>;
  /** Tracker ids of this run to the ids their rows carry. */
  trackIds: Map<number, string>;
  /** A lane camera's visits and state. */
  lane: LaneRecord | undefined;
  lastSnapshotAt: number;
  lastStateWrite: number;
  diners: number;
  parking: { occupied: number; total: number };
  occupancy: ReturnType<typeof createOccupancy> | undefined;
  lastParkingAt: number;
  timers: NodeJS.Timeout[];
  /** What the capture said when it last went offline. */
  offlineReason: string | undefined;
}

export function createVisionRuntime(deps: VisionRuntimeDeps, options: VisionRuntimeOptions) {
  const { registry, history, clock, log } = deps;
  const runs = new Map<string, Run>();
  /** Changes to a camera are applied in order, one at a time. */
  const pending = new Map<string, Promise<void>>();
  /** Cameras enabled whose pipeline could not start, and why. */
  const failures = new Map<string, string>();
  /** The registry's cameras as last heard of (its change hook), while started: no read per status. */
  let directory: Map<string, VisionCamera> | undefined;
  const alerts = createVisionAlerts({ db: deps.db, changes: deps.changes, clock, log });
  const verifier = createVerifier({
    db: deps.db,
    changes: deps.changes,
    history,
    alerts,
    clock,
    newId: deps.newId,
    log,
    mapping: options.menuMapping,
    saveSnapshot: (...args) => saveSnapshot(...args),
    modelOf(cameraId) {
      const camera = registry.camera(cameraId);
      const settings = camera && registry.effectiveSettings(camera.id);
      return camera ? modelNameFor(camera.type, settings?.camera.model_variant ?? null) : 'unknown';
    },
  });
  let edge = registry.edgeSettings('self');
  const models = createModelPool({
    resolve: options.resolveModel,
    maxBatch: edge.inference_batch_size,
    log: log.child({ module: 'vision-detect' }),
  });
  let snapshots = newSnapshotStore(edge.video_retention_days);
  let stopRetention = () => {};
  let stopRowRetention = () => {};
  let lastOccupancyWrite = { at: 0, key: '' };
  let unsubscribeEvents: (() => void) | undefined;
  let unsubscribeChanges: (() => void) | undefined;
  let stopped = false;
  const iso = (ms: number) => new Date(ms).toISOString();
  const screens = createScreens({
    runs,
    failures,
    directory: () => directory,
    registry,
    history,
    location: deps.location,
    clock,
  });

  /** The vision rows past `video_retention_days` go with the snapshots, hourly. */
  function scheduleRowRetention() {
    const purge = () => {
      try {
        const before = new Date(clock.now().getTime() - edge.video_retention_days * 86_400_000);
        const removed = history.purgeBefore(before.toISOString());
        if (removed > 0) log.info({ removed, before }, 'vision rows past retention removed');
      } catch (error) {
        log.warn({ err: error }, 'vision row retention failed; retried next run');
      }
    };
    const task = cron.schedule('23 * * * *', purge);
    purge();
    return () => void task.stop();
  }

  function newSnapshotStore(retentionDays: number): SnapshotStore {
    return createSnapshotStore({
      dir: options.snapshotsDir,
      retentionDays,
      budgetBytes: options.snapshotBudgetBytes,
      clock,
      log: log.child({ module: 'vision-snapshots' }),
    });
  }

  async function saveSnapshot(
    cameraId: string,
    kind: SnapshotKind,
    frame: Pick<Frame, 'data' | 'width' | 'height' | 'format'>,
    boxes: Array<{ box: Detection['box']; label: string }>,
    at: Date,
  ) {
    const written = await snapshots
      .save({ frame, boxes, cameraId, kind, at })
      .catch((error: unknown) => log.warn({ err: error, cameraId }, 'snapshot not written'));
    return written ? relative(snapshots.dir, written.file) : null;
  }

  // ---- a camera's results ----

  function onResult(run: Run, result: CameraResult) {
    run.minutes.add(result.inferenceMs, result.latencyMs);
    recordSightings(run, result);
    const type = run.camera.type;
    run.lane?.writeState();
    if (type === 'dining_room') {
      run.diners = run.occupancy?.updateDining(result.tracks) ?? 0;
      writeOccupancy(false);
    }
    if (type === 'parking' && run.occupancy && result.capturedAt - run.lastParkingAt >= 1000) {
      run.lastParkingAt = result.capturedAt;
      const spaces = run.occupancy.updateParking(result.tracks);
      run.parking = { occupied: spaces.filter((s) => s.occupied).length, total: spaces.length };
      writeOccupancy(false);
    }
  }

  /** A track seen for the first time is a detection: a row, and now and then a snapshot. */
  function recordSightings(run: Run, result: CameraResult) {
    const fresh = result.tracks.filter((track) => !run.trackIds.has(track.trackId));
    if (fresh.length === 0) return;
    for (const track of fresh) run.trackIds.set(track.trackId, deps.newId());
    const at = new Date(result.capturedAt);
    const snap = result.capturedAt - run.lastSnapshotAt >= SNAPSHOT_EVERY_MS;
    const write = (snapshot: string | null) => {
      for (const track of fresh)
        history.addDetection({
          id: deps.newId(),
          camera_id: run.camera.id,
          track_id: run.trackIds.get(track.trackId)!,
          name: track.className,
          confidence: round(track.confidence, 3),
          box: track.box.map((v) => Math.round(v)),
          detected_at: at.toISOString(),
          snapshot,
        });
      registry.reportStatus(run.camera.id, {
        status: run.pipeline.status === 'online' ? 'online' : 'offline',
        fps: run.pipeline.metrics().camera_fps,
        lastDetection: at,
      });
    };
    if (!snap) return write(null);
    run.lastSnapshotAt = result.capturedAt;
    // The frame's buffer goes back to the capture once this returns: the snapshot gets a copy.
    const frame = {
      data: Buffer.from(result.frame.data),
      width: result.frame.width,
      height: result.frame.height,
      format: result.frame.format,
    };
    const boxes = result.tracks.map((t) => ({
      box: t.box,
      label: `${t.className} ${t.confidence.toFixed(2)}`,
    }));
    void saveSnapshot(run.camera.id, 'detection', frame, boxes, at).then(write);
  }

  function occupancyRecord(): OccupancyRecord | undefined {
    const watching = [...runs.values()].filter(
      (run) => run.camera.type === 'dining_room' || run.camera.type === 'parking',
    );
    if (watching.length === 0) return undefined;
    const current = watching.reduce((sum, run) => sum + run.diners, 0);
    const occupied = watching.reduce((sum, run) => sum + run.parking.occupied, 0);
    const total = watching.reduce((sum, run) => sum + run.parking.total, 0);
    return {
      location_id: deps.locationId,
      timestamp: clock.now().toISOString(),
      dining_room: {
        current,
        capacity: options.diningCapacity,
        utilization: utilization(current, options.diningCapacity),
      },
      parking: { occupied, total, utilization: utilization(occupied, total) },
    };
  }

  function writeOccupancy(force: boolean) {
    const record = occupancyRecord();
    if (!record) return;
    const now = clock.now().getTime();
    const key = JSON.stringify([record.dining_room, record.parking]);
    if (!force && (key === lastOccupancyWrite.key || now - lastOccupancyWrite.at < OCCUPANCY_MIN_MS)) return;
    lastOccupancyWrite = { at: now, key };
    history.saveOccupancy(record);
  }

  function writeCameraState(run: Run) {
    run.lastStateWrite = clock.now().getTime();
    const camera = registry.camera(run.camera.id);
    if (!camera) return;
    history.saveCameraState({
      id: camera.id,
      name: camera.name,
      type: camera.type,
      enabled: camera.enabled ? 1 : 0,
      status: camera.status === 'online' ? 'online' : 'offline',
      fps: camera.fps,
      last_detection: camera.lastDetection,
      zones: camera.zones,
      settings: run.settings.camera,
      model: `${run.model}@${run.modelVersion}`,
      updated_at: clock.now().toISOString(),
    });
  }

  /** A camera's figures are judged on this much of a minute at least (not a camera just stopped). */
  const JUDGED_SECONDS = 30;

  function closeMinute(run: Run, atMs: number) {
    const from = Math.max(run.minutes.minute, run.minutes.since);
    const metrics = run.pipeline.metrics();
    const { minute, figures } = run.minutes.close(atMs, {
      frames_read: metrics.frames_read,
      frames_dropped: metrics.frames_dropped,
      frames_skipped_by_motion: metrics.frames_skipped_by_motion,
      frames_inferred: metrics.frames_inferred,
      detections: metrics.detections,
    });
    history.addMinute({
      id: `${run.camera.id}/${iso(minute)}`,
      camera_id: run.camera.id,
      model_id: run.model,
      model_version: run.modelVersion,
      minute: iso(minute),
      metrics: figures as unknown as Record<string, unknown>,
    });
    if (atMs - from >= JUDGED_SECONDS * 1000) checkAlerts(run, figures);
  }

  function checkAlerts(run: Run, figures: MinuteFigures) {
    for (const threshold of thresholdsFor(run.settings.camera.inference_fps))
      alerts.judge(run.camera.id, run.model, threshold, figureOf(threshold.metric, figures));
  }

  // ---- starting and stopping cameras ----

  async function startRun(camera: VisionCamera, settings: EffectiveSettings): Promise<Run | undefined> {
    const model = modelNameFor(camera.type, settings.camera.model_variant);
    const detector = models.handle(model);
    let manifest: Awaited<ReturnType<typeof detector.manifest>>;
    try {
      manifest = await detector.manifest();
    } catch (error) {
      log.error({ err: error, cameraId: camera.id, model }, 'camera not started: its model cannot run');
      failures.set(camera.id, `model ${model} cannot run: ${(error as Error).message}`);
      registry.reportStatus(camera.id, { status: 'offline', fps: 0 });
      return undefined;
    }
    const { width, height } = parseSize(settings.camera.inference_resolution);
    const classIds = (names: Set<string>) =>
      manifest.classes.flatMap((name, id) => (names.has(name) ? [id] : []));
    const tracked =
      camera.type === 'drive_thru_lane' || camera.type === 'parking'
        ? classIds(VEHICLE_CLASSES)
        : camera.type === 'dining_room'
          ? classIds(PERSON_CLASSES)
          : undefined;
    const lane = camera.type === 'drive_thru_lane' ? laneZonesOf(camera.zones) : undefined;
    if (lane?.missing.length)
      log.warn(
        { cameraId: camera.id, missing: lane.missing },
        'lane camera without its zones: no drive-thru analytics until they are drawn',
      );
    const pipeline = createCameraPipeline(
      {
        id: camera.id,
        url: camera.sourceUrl,
        width,
        height,
        fps: settings.camera.inference_fps,
        // A recorded clip as a camera (the demo store's) plays in a loop; a live stream never ends.
        loop: sourceKind(camera.sourceUrl) === 'file',
        minConfidence: settings.camera.min_confidence,
        iouThreshold: settings.camera.iou_threshold,
        tracker: trackerOptionsFromSettings({
          fps: settings.camera.inference_fps,
          min_confidence: settings.camera.min_confidence,
          track_timeout_seconds: settings.drive_thru.track_timeout_seconds,
          min_track_length: settings.drive_thru.min_track_length,
          ...(settings.drive_thru.vehicle_min_size === null
            ? {}
            : { vehicle_min_size: settings.drive_thru.vehicle_min_size }),
          vehicleClasses: classIds(VEHICLE_CLASSES),
          ...(tracked ? { classes: tracked } : {}),
        }),
        lane: lane?.lane,
      },
      { detector, log, ffmpegPath: options.ffmpegPath },
    );
    const now = clock.now().getTime();
    const spaces = camera.zones
      .filter((zone) => /^(space|parking)[-_ ]?/i.test(zone.name))
      .map((zone) => ({ id: zone.name, polygon: zone.polygon as [number, number][] }));
    const dining = camera.zones.find((zone) => /^dining/i.test(zone.name));
    const trackIds = new Map<number, string>();
    const run: Run = {
      camera,
      settings,
      model,
      modelVersion: manifest.version,
      pipeline,
      minutes: createMinuteCollector(now, {
        frames_read: 0,
        frames_dropped: 0,
        frames_skipped_by_motion: 0,
        frames_inferred: 0,
        detections: 0,
      }),
      trackIds,
      lane:
        camera.type === 'drive_thru_lane'
          ? createLaneRecord(camera, pipeline, trackIds, { history, clock, newId: deps.newId })
          : undefined,
      lastSnapshotAt: 0,
      lastStateWrite: 0,
      diners: 0,
      parking: { occupied: 0, total: camera.type === 'parking' ? spaces.length : 0 },
      occupancy:
        camera.type === 'dining_room' || camera.type === 'parking'
          ? createOccupancy({
              diningZone: dining?.polygon as [number, number][] | undefined,
              capacity: options.diningCapacity,
              parkingSpaces: spaces,
            })
          : undefined,
      lastParkingAt: 0,
      timers: [],
      offlineReason: undefined,
    };
    pipeline.on('result', ((result: CameraResult) => {
      try {
        onResult(run, result);
      } catch (error) {
        log.error({ err: error, cameraId: camera.id }, 'camera result not recorded');
      }
    }) as (payload: never) => void);
    pipeline.on('lane', ((event: LaneEvent) => {
      try {
        run.lane?.onEvent(event);
      } catch (error) {
        log.error({ err: error, cameraId: camera.id }, 'lane event not recorded');
      }
    }) as (payload: never) => void);
    pipeline.on('status', ((change: StatusChange) => {
      if (change.status === 'offline') run.offlineReason = change.reason;
      reportStatus(run);
      writeCameraState(run);
    }) as (payload: never) => void);
    run.timers.push(
      setInterval(() => {
        reportStatus(run);
        const at = clock.now().getTime();
        if (minuteOf(at) > run.minutes.minute) closeMinute(run, at);
        if (at - run.lastStateWrite >= CAMERA_STATE_EVERY_MS) writeCameraState(run);
        run.lane?.writeState();
      }, STATUS_EVERY_MS),
    );
    for (const timer of run.timers) timer.unref();
    pipeline.start();
    writeCameraState(run);
    log.info({ cameraId: camera.id, type: camera.type, model, width, height }, 'camera pipeline started');
    return run;
  }

  function reportStatus(run: Run) {
    const metrics = run.pipeline.metrics();
    registry.reportStatus(run.camera.id, {
      status: run.pipeline.status === 'online' ? 'online' : 'offline',
      fps: Math.round(metrics.camera_fps * 10) / 10,
    });
  }

  async function stopRun(run: Run) {
    for (const timer of run.timers) clearInterval(timer);
    await run.pipeline.stop();
    closeMinute(run, clock.now().getTime());
    registry.reportStatus(run.camera.id, { status: 'offline', fps: 0 });
    writeCameraState(run);
  }

  /** Brings one camera's pipeline in line with the registry: stopped, started, or restarted. */
  function apply(
    cameraId: string,
    camera: VisionCamera | undefined,
    settings: EffectiveSettings | undefined,
  ) {
    const previous = pending.get(cameraId) ?? Promise.resolve();
    const next = previous.then(async () => {
      failures.delete(cameraId);
      const running = runs.get(cameraId);
      if (running) {
        runs.delete(cameraId);
        await stopRun(running);
      }
      if (stopped || !camera || !camera.enabled || !settings) return;
      const run = await startRun(camera, settings);
      if (run && !stopped) runs.set(cameraId, run);
      else if (run) await stopRun(run);
    });
    const settled = next.catch((error: unknown) => {
      failures.set(cameraId, `camera pipeline change failed: ${(error as Error).message}`);
      log.error({ err: error, cameraId }, 'camera pipeline change failed');
    });
    pending.set(cameraId, settled);
    return settled;
  }

  async function onEdgeChange(settings: EffectiveSettings['edge']) {
    if (settings.inference_batch_size !== edge.inference_batch_size)
      await models.setMaxBatch(settings.inference_batch_size);
    if (settings.video_retention_days !== edge.video_retention_days) {
      stopRetention();
      snapshots = newSnapshotStore(settings.video_retention_days);
      if (!stopped) stopRetention = scheduleRetention(snapshots, log);
    }
    edge = settings;
  }

  // ---- verification and the store's events ----

  function runningCamera(cameraId: string): Run {
    const run = runs.get(cameraId);
    if (!run)
      throw new VisionUnavailableError(
        `Camera ${cameraId} is not running (disabled, offline or not registered)`,
        'CAMERA_NOT_RUNNING',
      );
    return run;
  }

  function pickupCamera(cameraId: string | undefined): Run {
    if (cameraId !== undefined) return runningCamera(cameraId);
    const candidates = [...runs.values()].filter(
      (run) => run.camera.type === 'food_recognition' || run.camera.type === 'pickup_window',
    );
    const run =
      candidates.find((r) => r.camera.type === 'food_recognition' && r.pipeline.status === 'online') ??
      candidates.find((r) => r.pipeline.status === 'online') ??
      candidates[0];
    if (!run)
      throw new VisionUnavailableError('No pickup-window or food camera is running', 'NO_PICKUP_CAMERA');
    return run;
  }

  async function verify(request: VerifyRequest) {
    const run = pickupCamera(request.cameraId);
    return verifier.verify(
      { id: run.camera.id, minConfidence: run.settings.camera.min_confidence, pipeline: run.pipeline },
      request,
    );
  }

  function onOrderReady(orderId: string) {
    const order = deps.orders.get(orderId);
    if (!VERIFIED_ORDER_TYPES.has(order.order_type)) return;
    const hasCamera = [...runs.values()].some(
      (run) => run.camera.type === 'food_recognition' || run.camera.type === 'pickup_window',
    );
    if (!hasCamera) return;
    verify({ orderId, expected: expectedItems(order.items), trigger: 'order_ready' }).catch(
      (error: unknown) => log.warn({ err: error, orderId }, 'order not verified'),
    );
  }

  /** A drive-thru order paid now belongs to the car at a lane's pay window. */
  function onPayment(orderId: string) {
    if (deps.orders.get(orderId).order_type !== 'drive_thru') return;
    for (const run of runs.values()) if (run.lane?.linkPayment(orderId)) return;
  }

  function onStoreEvent(message: string) {
    const event = JSON.parse(message) as { type: string; data: { id?: string; order_id?: string } };
    try {
      if (event.type === 'order.ready' && event.data.id) onOrderReady(event.data.id);
      else if (event.type === 'payment.processed' && event.data.order_id) onPayment(event.data.order_id);
    } catch (error) {
      log.warn({ err: error, type: event.type }, 'store event not handled by vision');
    }
  }

  return {
    start() {
      stopRetention = scheduleRetention(snapshots, log);
      stopRowRetention = scheduleRowRetention();
      directory = new Map();
      for (const camera of registry.listCameras()) {
        directory.set(camera.id, camera);
        if (camera.enabled) void apply(camera.id, camera, registry.effectiveSettings(camera.id));
      }
      unsubscribeChanges = registry.onChange((cameraId, settings, camera) => {
        if (camera) directory?.set(cameraId, camera);
        else directory?.delete(cameraId);
        if (settings && settings.edge !== edge) void onEdgeChange(settings.edge);
        void apply(cameraId, camera, settings);
      });
      unsubscribeEvents = deps.events.subscribe(onStoreEvent);
    },
    /** Resolves once every camera change asked for so far has been carried out. */
    settled: () => Promise.all(pending.values()).then(() => undefined),
    running: () => [...runs.keys()],
    pipeline: (cameraId: string) => runs.get(cameraId)?.pipeline,
    /**
     * Every registered camera's state and live figures, in the registry's order. From memory once
     * started: cheap enough to ask every second (the kiosk's feed does).
     */
    cameraStatuses: screens.cameraStatuses,
    frameJpeg: screens.frameJpeg,
    liveFrame: screens.liveFrame,
    shiftStart: screens.shiftStart,
    laneHistory: screens.laneHistory,
    verify,
    review: verifier.review,
    /** Live lane figures of a lane camera (the first lane camera by default). */
    laneStatus(cameraId?: string) {
      const run =
        cameraId === undefined
          ? [...runs.values()].find((r) => r.camera.type === 'drive_thru_lane')
          : runs.get(cameraId);
      if (run?.camera.type !== 'drive_thru_lane') return undefined;
      const status = run.pipeline.laneStatus(clock.now().getTime());
      return status && { camera_id: run.camera.id, online: run.pipeline.status === 'online', ...status };
    },
    occupancy: occupancyRecord,
    alerts: alerts.list,
    /** Every running camera's live figures, with the model it runs. */
    liveMetrics: () =>
      [...runs.values()].map((run) => ({
        model_id: run.model,
        model_version: run.modelVersion,
        ...run.pipeline.metrics(),
      })),
    /** A still of the camera now, for drawing its zones; answers the picture and how the zones read. */
    async calibrate(cameraId: string) {
      const run = runningCamera(cameraId);
      let frame: Pick<Frame, 'data' | 'width' | 'height' | 'format'> | undefined;
      let found: TrackedObject[] = [];
      await run.pipeline
        .inspect(1, VERIFY_TIMEOUT_MS, (result) => {
          frame = {
            data: Buffer.from(result.frame.data),
            width: result.frame.width,
            height: result.frame.height,
            format: result.frame.format,
          };
          found = result.tracks;
        })
        .catch((error: Error) => {
          throw new VisionUnavailableError(
            `The camera gave no picture: ${error.message}`,
            'CAMERA_NOT_RUNNING',
          );
        });
      const at = clock.now();
      const snapshot = await saveSnapshot(
        cameraId,
        'calibration',
        frame!,
        run.camera.zones.length > 0 ? [] : found.map((t) => ({ box: t.box, label: t.className })),
        at,
      );
      // The zones are stored again at the resolution the picture was taken at.
      const camera = registry.putZones(cameraId, run.camera.zones);
      const lane = camera.type === 'drive_thru_lane' ? laneZonesOf(camera.zones) : undefined;
      return {
        camera_id: cameraId,
        captured_at: at.toISOString(),
        snapshot,
        width: frame!.width,
        height: frame!.height,
        zones: camera.zones,
        lane_ready: lane ? lane.missing.length === 0 : null,
        missing_zones: lane?.missing ?? [],
      };
    },
    /** Model sync's apply step: the new model runs before it is made current, or this throws. */
    swapModel: (name: string, loaded: LoadedModel) => models.swap(name, loaded),
    loadedModels: () => models.loaded(),
    snapshotsDir: () => snapshots.dir,
    async stop() {
      stopped = true;
      directory = undefined;
      unsubscribeChanges?.();
      unsubscribeEvents?.();
      stopRetention();
      stopRowRetention();
      await Promise.all(pending.values());
      await Promise.all([...runs.values()].map(stopRun));
      runs.clear();
      await models.close();
    },
  };
}

export type VisionRuntime = ReturnType<typeof createVisionRuntime>;

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
