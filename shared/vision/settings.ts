/**
 * The vision pipeline's settings as they cross the fleet link: the edge device's, the drive-thru's
 * and each camera's. The cloud validates and shows them with these schemas and defaults and pushes
 * them to the store, whose pipeline runs with them.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';

const strict = { additionalProperties: false } as const;
const Count = (maximum: number) => Type.Integer({ minimum: 1, maximum });
const Fraction = Type.Number({ minimum: 0, maximum: 1 });
const Rate = Type.Number({ exclusiveMinimum: 0, maximum: 120 });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** `1280x720`: width by height in pixels. */
export const SIZE_PATTERN = '^\\d{2,5}x\\d{2,5}$';

export const EdgeSettingsSchema = Type.Object(
  {
    max_concurrent_streams: Type.Optional(Count(64)),
    video_retention_days: Type.Optional(Count(365)),
    inference_batch_size: Type.Optional(Count(64)),
  },
  strict,
);
export type EdgeSettings = Static<typeof EdgeSettingsSchema>;

/** 100 Mbit/s: beyond any camera stream a store records. */
const MAX_BITRATE = 100_000_000;

export const CameraSettingsSchema = Type.Object(
  {
    resolution: Type.Optional(
      Type.String({ pattern: '^(\\d{3,4}p|\\d{2,5}x\\d{2,5})$', description: '1080p or 1920x1080' }),
    ),
    bitrate: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_BITRATE, description: 'Bits per second' }),
    ),
    fps: Type.Optional(Rate),
    min_confidence: Type.Optional(Fraction),
    iou_threshold: Type.Optional(Fraction),
    inference_fps: Type.Optional(Rate),
    inference_resolution: Type.Optional(Type.String({ pattern: SIZE_PATTERN, description: '1280x720' })),
    model_variant: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9][a-z0-9_-]{0,63}$',
        description: 'The name of a model in the models folder or installed by model sync (e.g. vehicles)',
      }),
    ),
  },
  strict,
);
export type CameraSettings = Static<typeof CameraSettingsSchema>;

export const DriveThruSettingsSchema = Type.Object(
  {
    track_timeout_seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600 })),
    min_track_length: Type.Optional(Count(10_000)),
    vehicle_min_size: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 10_000, description: 'Pixels, the box’s larger side' }),
    ),
  },
  strict,
);
export type DriveThruSettings = Static<typeof DriveThruSettingsSchema>;

/** A camera id as a settings section knows it (and as the registry accepts one). */
export const CAMERA_ID_PATTERN = '^[A-Za-z0-9._-]{1,128}$';

/** Settings for one or more sections at once: what a fleet settings command carries. */
export const PushedSettingsSchema = Type.Object(
  {
    edge: Type.Optional(EdgeSettingsSchema),
    drive_thru: Type.Optional(DriveThruSettingsSchema),
    cameras: Type.Optional(
      Type.Record(Type.String({ pattern: CAMERA_ID_PATTERN }), CameraSettingsSchema, strict),
    ),
  },
  { ...strict, minProperties: 1 },
);
export type PushedSettings = Static<typeof PushedSettingsSchema>;

// The settings with every key present: the documented defaults, and null where it shows none
// (the camera's own resolution, bitrate and rate; the default model; no minimum vehicle size).
export const EffectiveEdgeSettingsSchema = Type.Object({
  max_concurrent_streams: Type.Integer(),
  video_retention_days: Type.Integer(),
  inference_batch_size: Type.Integer(),
});
export type EffectiveEdgeSettings = Static<typeof EffectiveEdgeSettingsSchema>;

export const EffectiveCameraSettingsSchema = Type.Object({
  resolution: Nullable(Type.String()),
  bitrate: Nullable(Type.Integer()),
  fps: Nullable(Type.Number()),
  min_confidence: Type.Number(),
  iou_threshold: Type.Number(),
  inference_fps: Type.Number(),
  inference_resolution: Type.String(),
  model_variant: Nullable(Type.String()),
});
export type EffectiveCameraSettings = Static<typeof EffectiveCameraSettingsSchema>;

export const EffectiveDriveThruSettingsSchema = Type.Object({
  track_timeout_seconds: Type.Number(),
  min_track_length: Type.Integer(),
  vehicle_min_size: Nullable(Type.Number()),
});
export type EffectiveDriveThruSettings = Static<typeof EffectiveDriveThruSettingsSchema>;

export const EDGE_DEFAULTS: EffectiveEdgeSettings = {
  max_concurrent_streams: 8,
  video_retention_days: 14,
  inference_batch_size: 4,
};

export const CAMERA_DEFAULTS: EffectiveCameraSettings = {
  resolution: null,
  bitrate: null,
  fps: null,
  min_confidence: 0.8,
  iou_threshold: 0.5,
  inference_fps: 15,
  inference_resolution: '1280x720',
  model_variant: null,
};

// A two-second lost-track buffer: a car hidden behind another for a second is found again rather
// than counted as a new car (the lane's evaluation bars are met at it). A track is reported after two
// frames matched in a row, the tracker's own default too.
export const DRIVE_THRU_DEFAULTS: EffectiveDriveThruSettings = {
  track_timeout_seconds: 2,
  min_track_length: 2,
  vehicle_min_size: null,
};

/** What a camera's pipeline runs with: its settings, the drive-thru's and the edge's, defaults filled. */
export interface EffectiveSettings {
  camera: EffectiveCameraSettings;
  drive_thru: EffectiveDriveThruSettings;
  edge: EffectiveEdgeSettings;
}

export const withDefaults = <T extends object>(defaults: T, given: Partial<T> | undefined): T => ({
  ...defaults,
  ...given,
});

/** `1280x720` as numbers. */
export function parseSize(size: string): { width: number; height: number } {
  const [width, height] = size.split('x').map(Number);
  return { width: width!, height: height! };
}
