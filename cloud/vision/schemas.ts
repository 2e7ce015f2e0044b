import { type Static, type TSchema, Type } from '@sinclair/typebox';
import {
  CAMERA_ID_PATTERN,
  DriveThruSettingsSchema,
  EffectiveCameraSettingsSchema,
  EffectiveDriveThruSettingsSchema,
  EffectiveEdgeSettingsSchema,
} from '../../shared/vision/settings.ts';
import { PERIOD_PATTERN } from './period.ts';
import {
  CAMERA_STATUSES,
  CAMERA_TYPES,
  LANE_STATUSES,
  TRACK_OUTCOMES,
  VERIFICATION_TRIGGERS,
} from './tables.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
// One JSON-schema enum keeps the names' type for handlers and lists the values in the docs.
const Literals = <T extends readonly string[]>(values: T, options: { default?: T[number] } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
const strict = { additionalProperties: false } as const;
const CameraId = Type.String({
  pattern: CAMERA_ID_PATTERN,
  description: 'the id the store registered it under',
});
const Limit = Type.Integer({ minimum: 1, maximum: 500, default: 50 });
const Cursor = Type.String({ minLength: 1, maxLength: 512, description: 'next_cursor of the previous page' });
const Period = (fallback: string) =>
  Type.String({
    pattern: PERIOD_PATTERN,
    default: fallback,
    description: 'a count and a unit, m, h or d (15m, 1h, 24h, 7d); 1m to 30d',
  });

export const CameraParamsSchema = Type.Object({ camera_id: CameraId });
export const LocationParamsSchema = Type.Object({ location_id: Uuid });
export const EdgeParamsSchema = Type.Object({
  edge_id: Type.String({
    pattern: '^[A-Za-z0-9._-]{1,128}$',
    description: 'the appliance’s id (its sync id, which is its MDM device id when enrolled through MDM)',
  }),
});
export const ModelParamsSchema = Type.Object({
  model_id: Type.String({
    pattern: '^[A-Za-z0-9._-]{1,64}$',
    description: 'the model’s name, e.g. vehicles',
  }),
});

export const LocationQuerySchema = Type.Object({ location_id: Type.Optional(Uuid) }, strict);

const ZoneSchema = Type.Object({
  name: Type.String(),
  polygon: Type.Array(Type.Array(Type.Number()), { description: '[x, y] points in inference pixels' }),
});

/** Spec 3's camera record (id, name, type, status, fps, last_detection) and where it is. */
export const CameraSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Literals(CAMERA_TYPES),
  status: Literals(CAMERA_STATUSES),
  fps: Type.Number({ description: 'frames per second its pipeline processed when last synced' }),
  last_detection: Nullable(Timestamp),
  location_id: Uuid,
  enabled: Type.Boolean(),
  zones: Type.Array(ZoneSchema),
  model: Nullable(Type.String({ description: 'the model it runs, name@version' })),
  updated_at: { ...Timestamp, description: 'when the store last wrote the camera’s state' },
});
export const CameraListSchema = Type.Object({ cameras: Type.Array(CameraSchema) });

export const DriveThruQuerySchema = Type.Object(
  {
    location_id: Type.Optional({ ...Uuid, description: 'required when the tenant has several lanes' }),
    camera_id: Type.Optional({ ...CameraId, description: 'required when the store has several lanes' }),
  },
  strict,
);

/** Spec 3's drive-thru status record, with where it is, its counts and its freshness. */
export const DriveThruStatusSchema = Type.Object({
  location_id: Uuid,
  camera_id: Type.String(),
  queue_length: Type.Integer(),
  estimated_wait_seconds: Type.Integer(),
  cars: Type.Array(Type.Object({ position: Type.Number(), wait_seconds: Type.Number() })),
  orders_per_hour: Type.Number(),
  status: Literals(LANE_STATUSES),
  counts: Type.Object({
    completed: Type.Number(),
    pulled_forward: Type.Number(),
    balked: Type.Number(),
  }),
  updated_at: { ...Timestamp, description: 'when the store last wrote the lane’s state' },
  stale: Type.Boolean({
    description:
      'the state is over 2 minutes old (the newer of the lane’s and its camera’s) or the camera is offline',
  }),
});

const ItemSchema = Type.Object({ name: Type.String(), quantity: Type.Number() });

export const VerifyOrderSchema = Type.Object(
  {
    order_id: Type.String({ minLength: 1, maxLength: 128 }),
    camera_id: CameraId,
    expected_items: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 200 }),
          quantity: Type.Integer({ minimum: 1, maximum: 1000 }),
        },
        strict,
      ),
      { minItems: 1, maxItems: 200 },
    ),
  },
  strict,
);
export type VerifyOrderBody = Static<typeof VerifyOrderSchema>;

export const VerificationSchema = Type.Object({
  verified: Type.Boolean(),
  detections: Type.Array(
    Type.Object({ name: Type.String(), confidence: Type.Number(), matched: Type.Boolean() }),
  ),
  missing_items: Type.Array(ItemSchema),
  extra_items: Type.Array(ItemSchema),
  order_id: Type.String(),
  camera_id: Type.String(),
  location_id: Uuid,
  verification_id: Type.String(),
  trigger: Literals(VERIFICATION_TRIGGERS),
  verified_at: { ...Timestamp, description: 'when the store checked the tray' },
});

export const OccupancySchema = Type.Object({
  location_id: Uuid,
  timestamp: Timestamp,
  dining_room: Type.Object({
    current: Type.Number(),
    capacity: Type.Number(),
    utilization: Type.Number({ description: 'a fraction' }),
  }),
  parking: Type.Object({
    occupied: Type.Number(),
    total: Type.Number(),
    utilization: Type.Number({ description: 'a fraction' }),
  }),
});

export const DetectionsQuerySchema = Type.Object({ limit: Limit, cursor: Type.Optional(Cursor) }, strict);

export const DetectionSchema = Type.Object({
  id: Type.String(),
  camera_id: Type.String(),
  location_id: Uuid,
  track_id: Nullable(Type.String()),
  name: Type.String({ description: 'the class detected' }),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  box: Type.Array(Type.Number(), { description: '[x1, y1, x2, y2] in inference pixels' }),
  detected_at: Timestamp,
  snapshot: Nullable(Type.String({ description: 'the snapshot’s file name at the store' })),
});

export const TracksQuerySchema = Type.Object(
  {
    period: Period('1h'),
    location_id: Type.Optional(Uuid),
    camera_id: Type.Optional(CameraId),
    limit: Limit,
    cursor: Type.Optional(Cursor),
  },
  strict,
);

const Seconds = Nullable(Type.Number());
export const TrackSchema = Type.Object({
  id: Type.String(),
  camera_id: Type.String(),
  location_id: Uuid,
  entered_at: Timestamp,
  left_at: Timestamp,
  outcome: Literals(TRACK_OUTCOMES),
  order_id: Nullable(
    Type.String({ description: 'the drive-thru order paid while the car was at the pay window' }),
  ),
  pulled_forward: Type.Boolean(),
  times: Type.Object(
    {
      menu_board: Seconds,
      pay_window: Seconds,
      pickup_window: Seconds,
      pull_forward: Seconds,
      total: Seconds,
    },
    { description: 'seconds at each point; null where the car did not stop' },
  ),
  events: Type.Array(
    Type.Object({ kind: Type.String(), zone: Type.Optional(Type.String()), at: Type.String() }),
  ),
});

export const MetricsQuerySchema = Type.Object(
  { period: Period('24h'), location_id: Type.Optional(Uuid) },
  strict,
);

const Ms = Nullable(Type.Number());
const FiguresSchema = {
  minutes: Type.Integer({ description: 'camera-minutes summed' }),
  frames: Type.Object({
    read: Type.Integer(),
    skipped_by_motion: Type.Integer(),
    dropped: Type.Integer(),
  }),
  inferences: Type.Integer({ description: 'frames the model ran on' }),
  detections: Type.Integer(),
  latency_ms: Type.Object(
    { p50: Ms, p99: Ms, mean: Ms },
    { description: 'inference time: the minutes’ figures averaged, each weighted by its inferences' },
  ),
  capture_to_result_ms: Type.Object(
    { p50: Ms, p95: Ms, p99: Ms },
    { description: 'frame captured to result: the minutes’ figures averaged, weighted by inferences' },
  ),
  camera_fps: Nullable(Type.Number({ description: 'mean over the minutes' })),
  detection_fps: Nullable(Type.Number({ description: 'mean over the minutes' })),
};

export const ModelMetricsSchema = Type.Object({
  model_id: Type.String(),
  period: Type.String(),
  from: Timestamp,
  to: Timestamp,
  ...FiguresSchema,
  cameras: Type.Array(Type.Object({ camera_id: Type.String(), location_id: Uuid, ...FiguresSchema })),
  alerts: Type.Array(
    Type.Object({
      metric: Literals(['camera_fps', 'inference_latency_p99'] as const),
      severity: Literals(['warning', 'critical'] as const),
      camera_id: Type.String(),
      location_id: Uuid,
      value: Type.Number(),
      threshold: Type.Number(),
    }),
    {
      description:
        'per camera, by these thresholds: camera_fps under 10 warning, under 5 critical; inference_latency_p99 over 500 ms warning, over 1000 ms critical',
    },
  ),
});

/** A request awaited: shown until the store's settings show it (or, unsynced sections, it is confirmed). */
const Pending = <T extends TSchema>(settings: T) =>
  Nullable(
    Type.Object({
      settings: { ...settings, description: 'what the store will run: the defaults under what was sent' },
      requested: Type.Record(Type.String(), Type.Unknown(), { description: 'the section as it was sent' }),
      command_id: Uuid,
      command_state: Nullable(
        Type.String({
          description: 'the fleet command’s state (queued, sent, acknowledged, succeeded, failed, expired…)',
        }),
      ),
      requested_at: Timestamp,
      requested_by: Type.String({ description: 'user id' }),
    }),
  );

export const CameraSettingsViewSchema = Type.Object({
  camera_id: Type.String(),
  location_id: Uuid,
  settings: {
    ...EffectiveCameraSettingsSchema,
    description: 'as the store last synced them, defaults filled',
  },
  synced_at: Timestamp,
  pending: Pending(EffectiveCameraSettingsSchema),
});

const unsynced = {
  confirmed_at: Nullable({
    ...Timestamp,
    description: 'when the appliance confirmed them; null: the defaults',
  }),
};
export const DriveThruSettingsViewSchema = Type.Object({
  location_id: Uuid,
  settings: {
    ...EffectiveDriveThruSettingsSchema,
    description: 'the last the appliance confirmed, defaults filled',
  },
  ...unsynced,
  pending: Pending(EffectiveDriveThruSettingsSchema),
});

export const EdgeSettingsViewSchema = Type.Object({
  edge_id: Type.String(),
  location_id: Uuid,
  managed: Type.Boolean({ description: 'enrolled through MDM, so the cloud can send it commands' }),
  settings: {
    ...EffectiveEdgeSettingsSchema,
    description: 'the last the appliance confirmed, defaults filled',
  },
  ...unsynced,
  pending: Pending(EffectiveEdgeSettingsSchema),
});

const accepted = {
  command_id: Uuid,
  status: Type.Literal('pending'),
  expires_at: { ...Timestamp, description: 'the command is not acted on after this' },
};
export const CameraSettingsAcceptedSchema = Type.Object({
  ...accepted,
  camera_id: Type.String(),
  location_id: Uuid,
  settings: EffectiveCameraSettingsSchema,
});
export const DriveThruSettingsAcceptedSchema = Type.Object({
  ...accepted,
  location_id: Uuid,
  settings: EffectiveDriveThruSettingsSchema,
});
export const EdgeSettingsAcceptedSchema = Type.Object({
  ...accepted,
  edge_id: Type.String(),
  location_id: Uuid,
  settings: EffectiveEdgeSettingsSchema,
});
export const CalibrateAcceptedSchema = Type.Object({
  ...accepted,
  camera_id: Type.String(),
  location_id: Uuid,
});

/** The drive-thru's settings, and which store they are for (here or in the query). */
export const DriveThruSettingsBodySchema = Type.Object(
  { ...DriveThruSettingsSchema.properties, location_id: Type.Optional(Uuid) },
  strict,
);
