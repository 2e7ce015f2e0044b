/**
 * What the operator screens ask of the running cameras: every camera's state and figures, a
 * camera's picture now with the model's boxes for it, and the drive-thru over a shift. Reads the
 * runtime's pipelines and failures as they are; holds nothing of its own.
 */
import type { Clock } from '../../../shared/clock.ts';
import type { LocationService } from '../../location/index.ts';
import type { CameraPipeline } from '../pipeline/camera.ts';
import { encodeStill } from '../record/index.ts';
import type { VisionCamera, VisionRegistry } from '../registry/index.ts';
import {
  type CameraStatusEntry,
  type IdleState,
  idleCameraStatus,
  runningCameraStatus,
} from './camera-status.ts';
import type { VisionHistory } from './history.ts';
import { businessDayStart, type LaneVisit, laneBuckets } from './lane-history.ts';
import { type LiveFrame, liveFrameOf } from './live.ts';
import { VisionUnavailableError } from './verification.ts';

/** A live frame asked for waits this long for the camera's next one. */
const FRAME_WAIT_MS = 2000;

/** What a screen needs of a camera's run. */
export interface ScreenRun {
  camera: VisionCamera;
  pipeline: CameraPipeline;
  /** What the capture said when it last went offline. */
  offlineReason: string | undefined;
}

export interface ScreenDeps {
  runs: ReadonlyMap<string, ScreenRun>;
  /** Cameras enabled whose pipeline could not start, and why. */
  failures: ReadonlyMap<string, string>;
  /** The registry's cameras as the runtime last heard of them; undefined while it is not started. */
  directory(): ReadonlyMap<string, VisionCamera> | undefined;
  registry: Pick<VisionRegistry, 'listCameras'>;
  history: Pick<VisionHistory, 'laneVisits'>;
  location: Pick<LocationService, 'get'>;
  clock: Clock;
}

export interface LaneHistoryQuery {
  since: Date;
  until: Date;
  bucketMinutes: number;
  cameraId?: string | undefined;
}

export function createScreens(deps: ScreenDeps) {
  const { runs, failures } = deps;

  function idleState(camera: VisionCamera): IdleState {
    if (!camera.enabled) return { state: 'stopped', reason: 'disabled' };
    const failure = failures.get(camera.id);
    if (failure) return { state: 'error', reason: failure };
    if (!deps.directory()) return { state: 'stopped', reason: 'the camera pipelines are not running' };
    return { state: 'starting', reason: null };
  }

  /** A camera with a picture to show, or why not. */
  function showing(cameraId: string): ScreenRun {
    const run = runs.get(cameraId);
    if (!run)
      throw new VisionUnavailableError(
        `Camera ${cameraId} is not running (disabled, offline or not registered)`,
        'CAMERA_NOT_RUNNING',
      );
    if (run.pipeline.status !== 'online')
      throw new VisionUnavailableError(`Camera ${cameraId} has no picture yet`, 'CAMERA_NO_FRAME');
    return run;
  }

  /** The cars in the running lanes now, as visits up to now. */
  function carsInLanes(now: number, cameraId: string | undefined): LaneVisit[] {
    return [...runs.values()]
      .filter((run) => run.camera.type === 'drive_thru_lane' && (!cameraId || run.camera.id === cameraId))
      .flatMap((run) => run.pipeline.laneStatus(now)?.cars ?? [])
      .map((car) => ({
        enteredAt: now - car.wait_seconds * 1000,
        leftAt: now,
        served: false,
        waitSeconds: null,
      }));
  }

  return {
    /** Every registered camera, in the registry's order; from memory once the runtime is started. */
    cameraStatuses(): CameraStatusEntry[] {
      const cameras = deps.directory()?.values() ?? deps.registry.listCameras();
      return [...cameras].map((camera) => {
        const run = runs.get(camera.id);
        return run
          ? runningCameraStatus(camera, run.pipeline, run.offlineReason)
          : idleCameraStatus(camera, idleState(camera));
      });
    },

    /** The camera's next frame as a JPEG `width` pixels wide, with the frame's seq and time. */
    async frameJpeg(cameraId: string, width: number) {
      const run = showing(cameraId);
      const taken = await run.pipeline
        .nextFrame(FRAME_WAIT_MS, (frame, view) => ({ jpeg: encodeStill(frame, width), view }))
        .catch((error: Error) => {
          throw new VisionUnavailableError(`The camera gave no picture: ${error.message}`, 'CAMERA_NO_FRAME');
        });
      return { jpeg: await taken.jpeg, seq: taken.view.seq, frameAt: new Date(taken.view.capturedAt) };
    },

    /** A recent frame's boxes (the newest without `seq`); undefined for a `seq` no longer held. */
    liveFrame(cameraId: string, seq?: number): LiveFrame | undefined {
      const view = showing(cameraId).pipeline.frameView(seq);
      if (!view && seq === undefined)
        throw new VisionUnavailableError(`Camera ${cameraId} has no picture yet`, 'CAMERA_NO_FRAME');
      return view && liveFrameOf(cameraId, view);
    },

    /** When the store's business day that `at` falls in began. */
    shiftStart(at: Date): Date {
      const { timezone, business_day_starts_at } = deps.location.get();
      return businessDayStart(at, timezone, business_day_starts_at);
    },

    /** The stored visits overlapping [since, until), with the cars in the lane now. */
    laneHistory({ since, until, bucketMinutes, cameraId }: LaneHistoryQuery) {
      const stored: LaneVisit[] = deps.history
        .laneVisits(since.toISOString(), until.toISOString(), cameraId)
        .map((row) => ({
          enteredAt: Date.parse(row.entered_at),
          leftAt: Date.parse(row.left_at),
          served: row.outcome === 'served',
          waitSeconds: row.total_seconds,
        }));
      const visits = [...stored, ...carsInLanes(deps.clock.now().getTime(), cameraId)];
      const range = { since: since.getTime(), until: until.getTime(), bucketMs: bucketMinutes * 60_000 };
      return {
        since: since.toISOString(),
        until: until.toISOString(),
        bucket_minutes: bucketMinutes,
        buckets: laneBuckets(visits, range),
      };
    },
  };
}
