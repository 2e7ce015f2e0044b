/**
 * The state topics without the feed: each read once at sign-in from the REST API, and again every
 * few seconds while the feed is down, so every screen (and the offline banner) still has them.
 */
import { ApiError } from './api.ts';
import { useLoad } from './hooks.ts';
import { api } from './session.ts';
import { setTopic, store, type Topics, useStore } from './store.ts';
import type { CameraStatus, Device, DeviceAlert, LaneStatus, SyncStatus } from './types.ts';

const POLL_MS = 10_000;

const notFoundAsNull = (error: unknown) => {
  if (error instanceof ApiError && error.status === 404) return null;
  throw error;
};

/** The status list as an array, whether it comes bare or as `{ cameras }` / `{ items }`. */
export function cameraList(data: unknown): CameraStatus[] {
  if (Array.isArray(data)) return data as CameraStatus[];
  const wrapped = data as { cameras?: unknown; items?: unknown } | null;
  if (Array.isArray(wrapped?.cameras)) return wrapped.cameras as CameraStatus[];
  if (Array.isArray(wrapped?.items)) return wrapped.items as CameraStatus[];
  return [];
}

const loaders: { [K in Exclude<keyof Topics, 'actions'>]: () => Promise<Topics[K]> } = {
  sync: () => api.get<SyncStatus>('/v1/sync/status'),
  devices: async () => {
    const [items, alerts] = await Promise.all([
      api.get<Device[]>('/v1/devices'),
      api.get<DeviceAlert[]>('/v1/devices/alerts?open=true'),
    ]);
    return { items, alerts };
  },
  drive_thru: () => api.get<LaneStatus>('/api/vision/drive-thru/status').catch(notFoundAsNull),
  cameras: () => api.get<unknown>('/v1/vision/cameras/status').then(cameraList),
};

export async function refreshTopic(topic: Exclude<keyof Topics, 'actions'>) {
  try {
    setTopic(topic, await loaders[topic]());
  } catch {
    // Kept as last known; the next poll or the feed brings it.
  }
}

const refreshAll = () =>
  Promise.all(Object.keys(loaders).map((t) => refreshTopic(t as keyof typeof loaders)));

/** Reads every topic now, then again while the feed is not open. */
export function startTopicFallback(): () => void {
  void refreshAll();
  const timer = setInterval(() => {
    if (store.get().feed !== 'open' && store.get().session) void refreshAll();
  }, POLL_MS);
  return () => clearInterval(timer);
}

/**
 * The cameras' status: the feed's topic, or while it has none (an empty topic from a feed not
 * wired to the pipelines yet, or the feed down) the status route read every few seconds.
 */
export function useCameras(): CameraStatus[] | null {
  const topic = useStore((s) => s.topics.cameras);
  const fromTopic = topic !== null && topic.length > 0;
  const direct = useLoad(
    () =>
      fromTopic ? Promise.resolve(null) : api.get<unknown>('/v1/vision/cameras/status').then(cameraList),
    [fromTopic],
    5000,
  );
  return fromTopic ? topic : (direct.data ?? topic);
}
