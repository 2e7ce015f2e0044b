import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { CAMERA_ID_PATTERN } from '../settings/index.ts';

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const strict = { additionalProperties: false } as const;

/**
 * What a camera looks at, which decides what its pipeline does: a drive-thru lane (queue and
 * waits), the pickup window (order verification), the dining room and the car park (occupancy),
 * food recognition (a tray or pass camera).
 */
export const CAMERA_TYPES = [
  'drive_thru_lane',
  'pickup_window',
  'dining_room',
  'parking',
  'food_recognition',
] as const;
export type CameraType = (typeof CAMERA_TYPES)[number];
export const CameraTypeSchema = Type.Union(CAMERA_TYPES.map((type) => Type.Literal(type)));

export const CAMERA_STATUSES = ['online', 'offline'] as const;
export type CameraStatus = (typeof CAMERA_STATUSES)[number];

export const SourceUrlSchema = Type.String({
  pattern: '^((rtsps?|https?)://[^\\s]+|file://[^\\s]+)$',
  maxLength: 2048,
  description: 'rtsp://, rtsps://, http://, https:// or file:// (a recorded clip)',
});

export const PointSchema = Type.Tuple([Type.Number({ minimum: 0 }), Type.Number({ minimum: 0 })], {
  description: '[x, y] in pixels of the camera’s inference resolution',
});

export const ZoneSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    polygon: Type.Array(PointSchema, { minItems: 3, maxItems: 64 }),
  },
  strict,
);
export type Zone = Static<typeof ZoneSchema>;

/** In order: where zones overlap, an object is in the first one. */
export const ZonesSchema = Type.Array(ZoneSchema, { maxItems: 32 });

export const CameraSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: CameraTypeSchema,
  status: Type.Union(CAMERA_STATUSES.map((status) => Type.Literal(status))),
  fps: Type.Number({ description: 'Frames per second the pipeline processes now (0 when offline)' }),
  last_detection: Nullable(Timestamp),
  enabled: Type.Boolean(),
  source_url: Type.String({ description: 'With any password masked' }),
  zones: ZonesSchema,
  status_reported_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Camera = Static<typeof CameraSchema>;

export const CameraListSchema = Type.Object({ cameras: Type.Array(CameraSchema) });

export const CreateCameraSchema = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        pattern: CAMERA_ID_PATTERN,
        description: 'The id the cloud’s settings name it by; generated when absent',
      }),
    ),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    type: CameraTypeSchema,
    source_url: SourceUrlSchema,
    enabled: Type.Optional(Type.Boolean({ default: true })),
    zones: Type.Optional(ZonesSchema),
  },
  strict,
);
export type CreateCamera = Static<typeof CreateCameraSchema>;

export const UpdateCameraSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    type: Type.Optional(CameraTypeSchema),
    source_url: Type.Optional(SourceUrlSchema),
    enabled: Type.Optional(Type.Boolean()),
  },
  { ...strict, minProperties: 1 },
);
export type UpdateCamera = Static<typeof UpdateCameraSchema>;

export const ZonesBodySchema = Type.Object({ zones: ZonesSchema }, strict);

export const CameraParamsSchema = Type.Object({ camera_id: Type.String({ pattern: CAMERA_ID_PATTERN }) });
export const EdgeParamsSchema = Type.Object({
  edge_id: Type.String({ minLength: 1, maxLength: 128, description: 'This appliance’s id, or `self`' }),
});
