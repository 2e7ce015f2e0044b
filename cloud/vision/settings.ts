/**
 * Settings the cloud asks of a store's appliance, carried as
 * fleet `settings` commands through the device registry, and calibration. A section sent replaces
 * the one stored at the store (a setting left out goes back to its default), so what the store
 * will run is the defaults filled in under what was sent. The request is kept as awaited until
 * it shows: a camera's in its synced settings, the drive-thru's and the edge's (which do not
 * sync) when the appliance confirms the command.
 */
import {
  CAMERA_DEFAULTS,
  type CameraSettings,
  DRIVE_THRU_DEFAULTS,
  type DriveThruSettings,
  EDGE_DEFAULTS,
  type EdgeSettings,
  withDefaults,
} from '../../shared/vision/settings.ts';
import type { Db } from '../db/index.ts';
import {
  type EdgeCommand,
  requireCamera,
  scopeLocation,
  type Viewer,
  type VisionDeps,
  visible,
} from './context.ts';
import {
  edgeNotFound,
  edgeNotManaged,
  locationNotFound,
  settingsLocationRequired,
  streamLimitBelowEnabled,
} from './errors.ts';
import * as queries from './store.ts';
import { parseJson } from './synced.ts';
import type { SettingsSection, VisionCameraRow, VisionDesiredSettingsRow } from './tables.ts';
import { syncedSettings } from './views.ts';

type Section = Record<string, unknown>;
const parse = (json: string | null): Section => (json === null ? {} : ((parseJson(json) as Section) ?? {}));
/** The keys of `defaults`, from `given` where it has them: a store's extra keys stay out. */
const effective = <T extends object>(defaults: T, given: Section): T =>
  withDefaults(
    defaults,
    Object.fromEntries(
      Object.keys(defaults)
        .map((k) => [k, given[k]])
        .filter(([, v]) => v !== undefined),
    ) as Partial<T>,
  );
const same = (a: Section, b: Section) => Object.keys(a).every((key) => a[key] === b[key]);

export function createVisionSettings(deps: VisionDeps) {
  const db = deps.store.db;
  const { edges } = deps;

  /** The awaited request as shown: what the store will run, what was sent, the command's state. */
  async function pendingOf<T extends object>(row: VisionDesiredSettingsRow, defaults: T) {
    const command = await edges.settingsCommand(row.tenant_id, row.device_id, row.command_id);
    return {
      settings: effective(defaults, parse(row.settings)),
      requested: parse(row.settings),
      command_id: row.command_id,
      command_state: command?.state ?? null,
      requested_at: row.requested_at,
      requested_by: row.requested_by,
    };
  }

  async function managedAt(tenantId: string, locationId: string) {
    const deviceId = await edges.managedAt(tenantId, locationId);
    if (!deviceId) throw edgeNotManaged();
    return deviceId;
  }

  /**
   * Queues the command and keeps the request as awaited. The drive-thru's and the edge's last
   * confirmed settings move along: the request it replaces becomes them if it was confirmed.
   */
  async function send(
    viewer: Viewer,
    target: { section: SettingsSection; id: string; locationId: string; deviceId: string },
    body: Section,
    command: EdgeCommand,
  ) {
    const queued = await edges.queue(viewer.tenantId, target.deviceId, command);
    const before = await queries.desired(db, viewer.tenantId, target.section, target.id);
    const settled = before && (await confirmed(before));
    await queries.putDesired(db, {
      tenant_id: viewer.tenantId,
      section: target.section,
      target: target.id,
      location_id: target.locationId,
      settings: JSON.stringify(body),
      command_id: queued.command_id,
      device_id: target.deviceId,
      requested_by: viewer.userId,
      requested_at: deps.clock.now().toISOString(),
      confirmed: settled ? before.settings : (before?.confirmed ?? null),
      confirmed_at: settled ? settled.updated_at : (before?.confirmed_at ?? null),
    });
    return { command_id: queued.command_id, status: 'pending' as const, expires_at: queued.expires_at };
  }

  /** The command that carried the request, when the appliance confirmed it. */
  async function confirmed(row: VisionDesiredSettingsRow) {
    const command = await edges.settingsCommand(row.tenant_id, row.device_id, row.command_id);
    return command?.state === 'succeeded' ? command : undefined;
  }

  /** A section that does not sync: what the appliance last confirmed, and what is awaited. */
  async function unsyncedSection<T extends object>(
    viewer: Viewer,
    section: SettingsSection,
    target: string,
    defaults: T,
  ) {
    const row = await queries.desired(db, viewer.tenantId, section, target);
    if (!row) return { settings: defaults, confirmed_at: null, pending: null };
    const done = await confirmed(row);
    if (done)
      return {
        settings: effective(defaults, parse(row.settings)),
        confirmed_at: done.updated_at,
        pending: null,
      };
    return {
      settings: effective(defaults, parse(row.confirmed)),
      confirmed_at: row.confirmed_at,
      pending: await pendingOf(row, defaults),
    };
  }

  async function requireEdge(viewer: Viewer, edgeId: string) {
    const edge = await edges.find(viewer.tenantId, edgeId);
    if (!edge || !visible(viewer, edge.location_id)) throw edgeNotFound();
    return edge;
  }

  async function storeLocation(viewer: Viewer, asked: string | undefined) {
    const locationId = scopeLocation(viewer, asked);
    if (locationId === undefined) throw settingsLocationRequired();
    if (!(await deps.locationExists(viewer.tenantId, locationId))) throw locationNotFound();
    return locationId;
  }

  /** The store refuses fewer streams than cameras enabled; the cloud says so before sending. */
  async function checkStreams(viewer: Viewer, locationId: string, body: EdgeSettings) {
    const limit = effective(EDGE_DEFAULTS, body).max_concurrent_streams;
    const enabled = (await queries.cameras(db, viewer.tenantId, { locationId })).filter(
      (c) => c.enabled === 1,
    );
    if (enabled.length > limit) throw streamLimitBelowEnabled(limit, enabled.length);
  }

  return {
    async cameraSettings(viewer: Viewer, cameraId: string) {
      const camera = await requireCamera(deps, viewer, cameraId);
      const current = effective(CAMERA_DEFAULTS, syncedSettings(camera));
      const row = await queries.desired(db, viewer.tenantId, 'camera', cameraId);
      const shown = row && !same(effective(CAMERA_DEFAULTS, parse(row.settings)), current);
      return {
        camera_id: camera.id,
        location_id: camera.location_id,
        settings: current,
        synced_at: camera.updated_at,
        pending: shown ? await pendingOf(row, CAMERA_DEFAULTS) : null,
      };
    },

    async putCameraSettings(viewer: Viewer, cameraId: string, body: CameraSettings) {
      const camera = await requireCamera(deps, viewer, cameraId);
      const deviceId = await managedAt(viewer.tenantId, camera.location_id);
      const target = { section: 'camera' as const, id: cameraId, locationId: camera.location_id, deviceId };
      const command = { kind: 'settings' as const, payload: { cameras: { [cameraId]: body } } };
      const sent = await send(viewer, target, body, command);
      return {
        ...sent,
        camera_id: cameraId,
        location_id: camera.location_id,
        settings: effective(CAMERA_DEFAULTS, body),
      };
    },

    async calibrate(viewer: Viewer, cameraId: string) {
      const camera = await requireCamera(deps, viewer, cameraId);
      const deviceId = await managedAt(viewer.tenantId, camera.location_id);
      const queued = await edges.queue(viewer.tenantId, deviceId, {
        kind: 'calibrate',
        payload: { camera_id: cameraId },
      });
      return {
        command_id: queued.command_id,
        status: 'pending' as const,
        expires_at: queued.expires_at,
        camera_id: cameraId,
        location_id: camera.location_id,
      };
    },

    async driveThruSettings(viewer: Viewer, query: { location_id?: string | undefined }) {
      const locationId = await storeLocation(viewer, query.location_id);
      return {
        location_id: locationId,
        ...(await unsyncedSection(viewer, 'drive_thru', locationId, DRIVE_THRU_DEFAULTS)),
      };
    },

    async putDriveThruSettings(viewer: Viewer, asked: string | undefined, body: DriveThruSettings) {
      const locationId = await storeLocation(viewer, asked);
      const deviceId = await managedAt(viewer.tenantId, locationId);
      const target = { section: 'drive_thru' as const, id: locationId, locationId, deviceId };
      const sent = await send(viewer, target, body, { kind: 'settings', payload: { drive_thru: body } });
      return { ...sent, location_id: locationId, settings: effective(DRIVE_THRU_DEFAULTS, body) };
    },

    async edgeSettings(viewer: Viewer, edgeId: string) {
      const edge = await requireEdge(viewer, edgeId);
      const section = await unsyncedSection(viewer, 'edge', edge.id, EDGE_DEFAULTS);
      return { edge_id: edge.id, location_id: edge.location_id, managed: edge.managed, ...section };
    },

    async putEdgeSettings(viewer: Viewer, edgeId: string, body: EdgeSettings) {
      const edge = await requireEdge(viewer, edgeId);
      if (!edge.managed) throw edgeNotManaged();
      await checkStreams(viewer, edge.location_id, body);
      const target = {
        section: 'edge' as const,
        id: edge.id,
        locationId: edge.location_id,
        deviceId: edge.id,
      };
      const sent = await send(viewer, target, body, { kind: 'settings', payload: { edge: body } });
      return {
        ...sent,
        edge_id: edge.id,
        location_id: edge.location_id,
        settings: effective(EDGE_DEFAULTS, body),
      };
    },

    /** In a push's transaction: a camera's awaited settings that its synced settings now show are done. */
    async settleCameras(trx: Db, cameras: VisionCameraRow[]) {
      for (const camera of cameras) {
        const row = await queries.desired(trx, camera.tenant_id, 'camera', camera.id);
        if (!row) continue;
        const current = effective(CAMERA_DEFAULTS, syncedSettings(camera));
        if (same(effective(CAMERA_DEFAULTS, parse(row.settings)), current))
          await queries.dropDesired(trx, camera.tenant_id, 'camera', camera.id, row.command_id);
      }
    },
  };
}
