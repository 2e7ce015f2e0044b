import type { ApplianceDatabase } from '../../db/index.ts';
import type { CameraType, Zone } from './schemas.ts';

interface CameraRow {
  id: string;
  name: string;
  type: CameraType;
  source_url: string;
  enabled: 0 | 1;
  zones: string;
  zones_resolution: string | null;
  created_at: string;
  updated_at: string;
}

/** A camera as stored; the live figures are not. */
export interface StoredCamera {
  id: string;
  name: string;
  type: CameraType;
  sourceUrl: string;
  enabled: boolean;
  zones: Zone[];
  /** The inference resolution the zones were drawn at. */
  zonesResolution: string | null;
  createdAt: string;
  updatedAt: string;
}

const fromRow = (row: CameraRow): StoredCamera => ({
  id: row.id,
  name: row.name,
  type: row.type,
  sourceUrl: row.source_url,
  enabled: row.enabled === 1,
  zones: JSON.parse(row.zones) as Zone[],
  zonesResolution: row.zones_resolution,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toRow = (camera: StoredCamera): CameraRow => ({
  id: camera.id,
  name: camera.name,
  type: camera.type,
  source_url: camera.sourceUrl,
  enabled: camera.enabled ? 1 : 0,
  zones: JSON.stringify(camera.zones),
  zones_resolution: camera.zonesResolution,
  created_at: camera.createdAt,
  updated_at: camera.updatedAt,
});

/** vision_cameras: the store's cameras, oldest first. */
export function createCameraStore(db: ApplianceDatabase) {
  const all = db.prepare<[], CameraRow>('select * from vision_cameras order by created_at, id');
  const byId = db.prepare<[string], CameraRow>('select * from vision_cameras where id = ?');
  const byName = db.prepare<[string], CameraRow>('select * from vision_cameras where name = ?');
  const enabledCount = db.prepare<[], { count: number }>(
    'select count(*) as count from vision_cameras where enabled = 1',
  );
  const insert = db.prepare(
    `insert into vision_cameras (id, name, type, source_url, enabled, zones, zones_resolution, created_at, updated_at)
     values (@id, @name, @type, @source_url, @enabled, @zones, @zones_resolution, @created_at, @updated_at)`,
  );
  const update = db.prepare(
    `update vision_cameras set name = @name, type = @type, source_url = @source_url, enabled = @enabled,
       zones = @zones, zones_resolution = @zones_resolution, updated_at = @updated_at
     where id = @id`,
  );
  const remove = db.prepare('delete from vision_cameras where id = ?');

  return {
    list: (): StoredCamera[] => all.all().map(fromRow),
    get: (id: string): StoredCamera | undefined => {
      const row = byId.get(id);
      return row ? fromRow(row) : undefined;
    },
    /** By name, ignoring case (names are unique that way). */
    named: (name: string): StoredCamera | undefined => {
      const row = byName.get(name);
      return row ? fromRow(row) : undefined;
    },
    enabledCount: (): number => enabledCount.get()!.count,
    insert: (camera: StoredCamera): void => void insert.run(toRow(camera)),
    update: (camera: StoredCamera): void => void update.run(toRow(camera)),
    remove: (id: string): boolean => remove.run(id).changes > 0,
  };
}

export type CameraStore = ReturnType<typeof createCameraStore>;
