import type { Clock } from '../../../shared/clock.ts';
import type { PushedSettings } from '../../../shared/vision/settings.ts';
import type { ApplianceDatabase } from '../../db/index.ts';

/** Told the sections a save wrote ('edge', 'drive_thru', 'camera:<id>'), after it committed. */
export type SettingsSavedListener = (sections: string[]) => void;

// The fleet link and the local API each make a store over the same database: the listeners belong
// to the database, so a save through either reaches every subscriber.
const listenersByDb = new WeakMap<ApplianceDatabase, Set<SettingsSavedListener>>();

const listenersOf = (db: ApplianceDatabase) => {
  let listeners = listenersByDb.get(db);
  if (!listeners) {
    listeners = new Set();
    listenersByDb.set(db, listeners);
  }
  return listeners;
};

const cameraSection = (cameraId: string) => `camera:${cameraId}`;

function sectionsOf(settings: PushedSettings): Array<[string, object]> {
  return [
    ...(settings.edge ? [['edge', settings.edge] as [string, object]] : []),
    ...(settings.drive_thru ? [['drive_thru', settings.drive_thru] as [string, object]] : []),
    ...Object.entries(settings.cameras ?? {}).map(
      ([id, camera]) => [cameraSection(id), camera] as [string, object],
    ),
  ];
}

/**
 * The edge's, the drive-thru's and each camera's settings in appliance_settings, one row per
 * section, each replaced whole: by the cloud's settings commands and by managers on the local API.
 */
export function createSettingsStore(db: ApplianceDatabase, clock: Clock) {
  const put = db.prepare(
    `insert into appliance_settings (section, settings, command_id, updated_at) values (?, ?, ?, ?)
     on conflict (section) do update set settings = excluded.settings, command_id = excluded.command_id,
       updated_at = excluded.updated_at`,
  );
  const get = db.prepare<[string], { settings: string }>(
    'select settings from appliance_settings where section = ?',
  );
  const remove = db.prepare('delete from appliance_settings where section = ?');
  const listeners = listenersOf(db);
  const notify = (sections: string[]) => {
    for (const listener of listeners) listener(sections);
  };

  return {
    /**
     * Stores every section of the payload in one transaction (`commandId`: the fleet command's, or
     * null for a local change); answers the sections written.
     */
    save(settings: PushedSettings, commandId: string | null): string[] {
      const at = clock.now().toISOString();
      const sections = sectionsOf(settings);
      db.transaction(() => {
        for (const [section, value] of sections) put.run(section, JSON.stringify(value), commandId, at);
      })();
      const names = sections.map(([section]) => section);
      notify(names);
      return names;
    },
    /** A section as last saved ('edge', 'drive_thru', 'camera:<id>'), or undefined. */
    section<T = Record<string, unknown>>(name: string): T | undefined {
      const row = get.get(name);
      return row ? (JSON.parse(row.settings) as T) : undefined;
    },
    /** Forgets a camera's settings (inside the caller's transaction when there is one). */
    removeCamera(cameraId: string): void {
      remove.run(cameraSection(cameraId));
    },
    /** Hears every save on this database, whichever store made it; answers the unsubscribe. */
    onSaved(listener: SettingsSavedListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type SettingsStore = ReturnType<typeof createSettingsStore>;

export { cameraSection };
