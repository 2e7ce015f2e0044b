/**
 * The kiosk's state topics: what the screens show that is not an event (sync, devices, the lane,
 * the cameras, long actions). Each is read from its module's own service once a second while a
 * screen is connected, and goes out only when it changed, so a quiet store sends nothing.
 */
import { isDeepStrictEqual } from 'node:util';

export type TopicName = 'sync' | 'devices' | 'drive_thru' | 'cameras' | 'actions';

export type TopicSources = Record<TopicName, () => unknown>;

export interface TopicMessage {
  kind: 'state';
  topic: TopicName;
  data: unknown;
}

type Listener = (message: TopicMessage) => void;

/** Reads every source, and tells listeners about the ones that changed since the last read. */
export function createTopicWatcher(
  sources: TopicSources,
  intervalMs = 1000,
  onError?: (error: unknown) => void,
) {
  const latest = new Map<TopicName, unknown>();
  const listeners = new Set<Listener>();
  let timer: NodeJS.Timeout | undefined;

  function read(topic: TopicName) {
    try {
      return sources[topic]();
    } catch (error) {
      // One module failing must not take the other topics (or the feed) down with it.
      onError?.(error);
      return latest.get(topic) ?? null;
    }
  }

  function tick() {
    for (const topic of Object.keys(sources) as TopicName[]) {
      const data = read(topic);
      if (latest.has(topic) && isDeepStrictEqual(latest.get(topic), data)) continue;
      latest.set(topic, data);
      for (const listener of listeners) listener({ kind: 'state', topic, data });
    }
  }

  return {
    /** Hands the listener every topic now, then each change. */
    subscribe(listener: Listener) {
      if (listeners.size === 0) {
        latest.clear();
        tick();
        timer = setInterval(tick, intervalMs);
        timer.unref();
      }
      listeners.add(listener);
      for (const [topic, data] of latest) listener({ kind: 'state', topic, data });
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) clearInterval(timer);
      };
    },
    close() {
      listeners.clear();
      clearInterval(timer);
    },
  };
}
