import type { Logger } from 'pino';
import type { Clock } from '../../../shared/clock.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import type { ApplianceDatabase } from '../../db/index.ts';
import {
  CAMERA_DEFAULTS,
  type CameraSettings,
  cameraSection,
  createSettingsStore,
  DRIVE_THRU_DEFAULTS,
  type DriveThruSettings,
  EDGE_DEFAULTS,
  type EdgeSettings,
  type EffectiveSettings,
  withDefaults,
} from '../settings/index.ts';
import { maskedUrl, type VisionCamera } from './camera.ts';
import { type CameraChangeListener, createChangeHook } from './changes.ts';
import * as errors from './errors.ts';
import type { CameraStatus, CreateCamera, UpdateCamera, Zone } from './schemas.ts';
import { createCameraStore, type StoredCamera } from './store.ts';
import { scaleZones, zoneProblems } from './zones.ts';

/** What a camera's pipeline reports; `lastDetection` left out keeps the one reported before. */
export interface CameraStatusReport {
  status: CameraStatus;
  fps: number;
  lastDetection?: Date | string | null;
}

export interface VisionRegistryDeps {
  db: ApplianceDatabase;
  clock: Clock;
  newId: IdGenerator;
  /** This appliance's id as the cloud knows it, when it has one: its edge settings answer to it. */
  applianceId?: string | undefined;
  log?: Logger | undefined;
}

interface LiveFigures {
  status: CameraStatus;
  fps: number;
  lastDetection: string | null;
  reportedAt: string;
}

const OFFLINE = { status: 'offline' as const, fps: 0, lastDetection: null, reportedAt: null };

export function createVisionRegistry(deps: VisionRegistryDeps) {
  const { db, clock } = deps;
  const cameras = createCameraStore(db);
  const settings = createSettingsStore(db, clock);
  const live = new Map<string, LiveFigures>();
  const edgeIds = new Set(['self', ...(deps.applianceId ? [deps.applianceId] : [])]);
  const now = () => clock.now().toISOString();

  const edge = () => withDefaults(EDGE_DEFAULTS, settings.section<EdgeSettings>('edge'));
  const driveThru = () =>
    withDefaults(DRIVE_THRU_DEFAULTS, settings.section<DriveThruSettings>('drive_thru'));
  const cameraSettingsOf = (id: string) =>
    withDefaults(CAMERA_DEFAULTS, settings.section<CameraSettings>(cameraSection(id)));
  const effectiveOf = (id: string): EffectiveSettings => ({
    camera: cameraSettingsOf(id),
    drive_thru: driveThru(),
    edge: edge(),
  });

  function toVisionCamera(stored: StoredCamera): VisionCamera {
    const { zonesResolution, ...rest } = stored;
    const resolution = cameraSettingsOf(stored.id).inference_resolution;
    const figures = live.get(stored.id) ?? OFFLINE;
    return {
      ...rest,
      zones: scaleZones(stored.zones, zonesResolution, resolution),
      status: figures.status,
      fps: figures.fps,
      lastDetection: figures.lastDetection,
      statusReportedAt: figures.reportedAt,
    };
  }

  function stored(id: string): StoredCamera {
    const camera = cameras.get(id);
    if (!camera) throw errors.cameraNotFound();
    return camera;
  }

  const changes = createChangeHook(deps.log);
  function refresh(ids: Iterable<string>) {
    for (const id of ids) {
      const row = cameras.get(id);
      changes.offer(id, row && toVisionCamera(row), row && effectiveOf(id));
    }
  }

  const allIds = () => cameras.list().map((camera) => camera.id);
  for (const row of cameras.list()) changes.seed(row.id, toVisionCamera(row), effectiveOf(row.id));

  // Saves through any store on this database (the fleet link's too) reach the cameras they touch.
  settings.onSaved((sections) => {
    const everyCamera = sections.includes('edge') || sections.includes('drive_thru');
    refresh(everyCamera ? allIds() : sections.map((section) => section.slice('camera:'.length)));
  });

  return {
    listCameras: (): VisionCamera[] => cameras.list().map(toVisionCamera),
    camera: (id: string): VisionCamera | undefined => {
      const row = cameras.get(id);
      return row && toVisionCamera(row);
    },
    /** The camera, or CAMERA_NOT_FOUND. */
    cameraStatus: (id: string): VisionCamera => toVisionCamera(stored(id)),
    /** A camera's settings with the drive-thru's and the edge's, defaults filled; undefined for no camera. */
    effectiveSettings: (cameraId: string): EffectiveSettings | undefined =>
      cameras.get(cameraId) ? effectiveOf(cameraId) : undefined,
    /** Answers the unsubscribe. */
    onChange: (listener: CameraChangeListener): (() => void) => changes.listen(listener),
    /** Live figures from the pipeline, kept in memory; false for a camera not registered. */
    reportStatus(cameraId: string, report: CameraStatusReport): boolean {
      if (!cameras.get(cameraId)) return false;
      const previous = live.get(cameraId)?.lastDetection ?? null;
      const lastDetection =
        report.lastDetection === undefined
          ? previous
          : report.lastDetection && new Date(report.lastDetection).toISOString();
      live.set(cameraId, { status: report.status, fps: report.fps, lastDetection, reportedAt: now() });
      return true;
    },

    register(input: CreateCamera): VisionCamera {
      const id = input.id ?? deps.newId();
      const enabled = input.enabled ?? true;
      const resolution = cameraSettingsOf(id).inference_resolution;
      const zones = input.zones ?? [];
      const problems = zoneProblems(zones, resolution, 'body.zones');
      if (problems.length > 0) throw errors.invalidZones(problems);
      db.transaction(() => {
        if (cameras.get(id)) throw errors.cameraIdTaken(id);
        if (cameras.named(input.name)) throw errors.cameraNameTaken(input.name);
        if (enabled) assertStreamRoom();
        const at = now();
        cameras.insert({
          id,
          name: input.name,
          type: input.type,
          sourceUrl: input.source_url,
          enabled,
          zones,
          zonesResolution: resolution,
          createdAt: at,
          updatedAt: at,
        });
      })();
      refresh([id]);
      return toVisionCamera(stored(id));
    },

    update(id: string, patch: UpdateCamera): VisionCamera {
      db.transaction(() => {
        const camera = stored(id);
        const named = patch.name === undefined ? undefined : cameras.named(patch.name);
        if (named && named.id !== id) throw errors.cameraNameTaken(patch.name!);
        if (patch.enabled && !camera.enabled) assertStreamRoom();
        // The URL as shown (password masked) sent back unchanged keeps the real one.
        const sourceUrl =
          patch.source_url === undefined || patch.source_url === maskedUrl(camera.sourceUrl)
            ? camera.sourceUrl
            : patch.source_url;
        cameras.update({
          ...camera,
          name: patch.name ?? camera.name,
          type: patch.type ?? camera.type,
          sourceUrl,
          enabled: patch.enabled ?? camera.enabled,
          updatedAt: now(),
        });
        if (patch.enabled === false) live.delete(id);
      })();
      refresh([id]);
      return toVisionCamera(stored(id));
    },

    /** Forgets the camera, its settings and its figures. */
    remove(id: string): void {
      db.transaction(() => {
        if (!cameras.remove(id)) throw errors.cameraNotFound();
        settings.removeCamera(id);
      })();
      live.delete(id);
      refresh([id]);
    },

    /** Replaces the camera's zones, drawn in its inference resolution's pixels. */
    putZones(id: string, zones: Zone[]): VisionCamera {
      const camera = stored(id);
      const resolution = cameraSettingsOf(id).inference_resolution;
      const problems = zoneProblems(zones, resolution, 'body.zones');
      if (problems.length > 0) throw errors.invalidZones(problems);
      cameras.update({ ...camera, zones, zonesResolution: resolution, updatedAt: now() });
      refresh([id]);
      return toVisionCamera(stored(id));
    },

    cameraSettings: (id: string) => {
      stored(id);
      return cameraSettingsOf(id);
    },
    /** Replaces the camera's settings whole: what is left out is back to its default. */
    putCameraSettings(id: string, body: CameraSettings) {
      stored(id);
      settings.save({ cameras: { [id]: body } }, null);
      return cameraSettingsOf(id);
    },
    driveThruSettings: driveThru,
    putDriveThruSettings(body: DriveThruSettings) {
      settings.save({ drive_thru: body }, null);
      return driveThru();
    },
    edgeSettings(edgeId: string) {
      assertEdge(edgeId);
      return edge();
    },
    putEdgeSettings(edgeId: string, body: EdgeSettings) {
      assertEdge(edgeId);
      const limit = body.max_concurrent_streams ?? EDGE_DEFAULTS.max_concurrent_streams;
      const enabled = cameras.enabledCount();
      if (enabled > limit) throw errors.streamLimitBelowEnabled(limit, enabled);
      settings.save({ edge: body }, null);
      return edge();
    },
  };

  function assertStreamRoom() {
    const limit = edge().max_concurrent_streams;
    if (cameras.enabledCount() >= limit) throw errors.streamLimitReached(limit);
  }

  function assertEdge(edgeId: string) {
    if (!edgeIds.has(edgeId)) throw errors.edgeNotFound();
  }
}

export type VisionRegistry = ReturnType<typeof createVisionRegistry>;
