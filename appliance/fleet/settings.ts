/**
 * Settings the cloud pushes to the appliance over the fleet link: the edge device's, the
 * drive-thru's and each camera's (spec document 3, "Vision and edge settings"). Each section is
 * replaced whole and kept in appliance_settings, where the vision pipeline reads it. Unknown keys
 * are refused, so a typo in the cloud fails the command instead of being silently ignored.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Clock } from '../../shared/clock.ts';
import type { ApplianceDatabase } from '../db/index.ts';

const strict = { additionalProperties: false } as const;
const Count = (maximum: number) => Type.Integer({ minimum: 1, maximum });
const Fraction = Type.Number({ minimum: 0, maximum: 1 });

export const EdgeSettingsSchema = Type.Object(
  {
    max_concurrent_streams: Type.Optional(Count(64)),
    video_retention_days: Type.Optional(Count(365)),
    inference_batch_size: Type.Optional(Count(64)),
  },
  strict,
);

export const CameraSettingsSchema = Type.Object(
  {
    resolution: Type.Optional(Type.String({ pattern: '^(\\d{3,4}p|\\d{2,5}x\\d{2,5})$' })),
    bitrate: Type.Optional(Type.Integer({ minimum: 1 })),
    fps: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 120 })),
    min_confidence: Type.Optional(Fraction),
    iou_threshold: Type.Optional(Fraction),
    inference_fps: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 120 })),
    inference_resolution: Type.Optional(Type.String({ pattern: '^\\d{2,5}x\\d{2,5}$' })),
    model_variant: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  strict,
);

export const DriveThruSettingsSchema = Type.Object(
  {
    track_timeout_seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600 })),
    min_track_length: Type.Optional(Count(10_000)),
    vehicle_min_size: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 10_000 })),
  },
  strict,
);

/** A settings command's payload: one or more sections. */
export const PushedSettingsSchema = Type.Object(
  {
    edge: Type.Optional(EdgeSettingsSchema),
    drive_thru: Type.Optional(DriveThruSettingsSchema),
    cameras: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9._-]{1,128}$' }), CameraSettingsSchema, strict),
    ),
  },
  { ...strict, minProperties: 1 },
);
export type PushedSettings = Static<typeof PushedSettingsSchema>;

/** Why a payload is not settings (the first problem, as the cloud's command result), or undefined. */
export function settingsProblem(payload: unknown): string | undefined {
  const error = Value.Errors(PushedSettingsSchema, payload).First();
  return error ? `${error.path || '/'}: ${error.message}` : undefined;
}

export function createSettingsStore(db: ApplianceDatabase, clock: Clock) {
  const put = db.prepare(
    `insert into appliance_settings (section, settings, command_id, updated_at) values (?, ?, ?, ?)
     on conflict (section) do update set settings = excluded.settings, command_id = excluded.command_id,
       updated_at = excluded.updated_at`,
  );
  const get = db.prepare<[string], { settings: string }>(
    'select settings from appliance_settings where section = ?',
  );

  return {
    /** Stores every section of the payload in one transaction; answers the sections written. */
    save(settings: PushedSettings, commandId: string | null): string[] {
      const at = clock.now().toISOString();
      const sections: Array<[string, object]> = [
        ...(settings.edge ? [['edge', settings.edge] as [string, object]] : []),
        ...(settings.drive_thru ? [['drive_thru', settings.drive_thru] as [string, object]] : []),
        ...Object.entries(settings.cameras ?? {}).map(
          ([id, camera]) => [`camera:${id}`, camera] as [string, object],
        ),
      ];
      db.transaction(() => {
        for (const [section, value] of sections) put.run(section, JSON.stringify(value), commandId, at);
      })();
      return sections.map(([section]) => section);
    },
    /** A section as last pushed ('edge', 'drive_thru', 'camera:<id>'), or undefined. */
    section<T = Record<string, unknown>>(name: string): T | undefined {
      const row = get.get(name);
      return row ? (JSON.parse(row.settings) as T) : undefined;
    },
  };
}

export type SettingsStore = ReturnType<typeof createSettingsStore>;
