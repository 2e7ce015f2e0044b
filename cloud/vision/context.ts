import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import { cameraNotFound, otherLocation } from './errors.ts';
import { camera } from './store.ts';

/** A command the vision module sends a store's appliance through the device registry. */
export interface EdgeCommand {
  kind: 'settings' | 'calibrate';
  payload: Record<string, unknown>;
}

export interface QueuedCommand {
  command_id: string;
  state: string;
  expires_at: string;
  updated_at: string;
}

/**
 * What vision needs of the device plane (cloud/flows/vision.ts binds it): which appliance of a
 * store the cloud can command, and the registry's command queue.
 */
export interface VisionEdges {
  /** The store's enrolled appliance device, or undefined when it has none. */
  managedAt(tenantId: string, locationId: string): Promise<string | undefined>;
  /** An appliance of the tenant by id (sync's or the registry's): its store, and whether it is enrolled. */
  find(
    tenantId: string,
    edgeId: string,
  ): Promise<{ id: string; location_id: string; managed: boolean } | undefined>;
  queue(tenantId: string, deviceId: string, command: EdgeCommand): Promise<QueuedCommand>;
  /** A settings command's state as the registry knows it, or undefined when it no longer lists it. */
  settingsCommand(tenantId: string, deviceId: string, commandId: string): Promise<QueuedCommand | undefined>;
}

export interface VisionDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  edges: VisionEdges;
  /** Tenancy's answer: whether the location exists in the tenant. */
  locationExists(tenantId: string, locationId: string): Promise<boolean>;
}

/** Who asks: the tenant, and the store their session is for (null when it is tenant-wide). */
export interface Viewer {
  tenantId: string;
  userId: string;
  locationId: string | null;
}

/** The store a request may look at: the one it names, which must be the session's when it has one. */
export function scopeLocation(viewer: Viewer, asked?: string | undefined): string | undefined {
  if (viewer.locationId === null) return asked;
  if (asked !== undefined && asked !== viewer.locationId) throw otherLocation();
  return viewer.locationId;
}

/** Whether a row of `locationId` is visible to the viewer: another store's is as good as absent. */
export const visible = (viewer: Viewer, locationId: string) =>
  viewer.locationId === null || viewer.locationId === locationId;

/** The tenant's camera, or CAMERA_NOT_FOUND: another tenant's camera does not exist for the caller. */
export async function requireCamera(deps: VisionDeps, viewer: Viewer, cameraId: string) {
  const row = await camera(deps.store.db, viewer.tenantId, cameraId);
  if (!row || !visible(viewer, row.location_id)) throw cameraNotFound();
  return row;
}
