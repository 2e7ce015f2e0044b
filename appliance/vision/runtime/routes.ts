/**
 * The pipeline's side of the vision endpoints on the local API: the drive-thru's
 * live status and stored visits, order verification, occupancy, a camera's detections and its
 * calibration, the model metrics, and the snapshot files they point to. Everyone on shift reads;
 * managers calibrate.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../../shared/clock.ts';
import { Envelope, envelope, errorResponses } from '../../../shared/http/envelope.ts';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../../shared/http/errors.ts';
import { MANAGER_ROLES } from '../../../shared/roles.ts';
import { requireAuth } from '../../auth/index.ts';
import type { VisionRegistry } from '../registry/index.ts';
import { CAMERA_ID_PATTERN } from '../settings/index.ts';
import type { VisionHistory } from './history.ts';
import { cameraLiveRoutes, driveThruHistoryRoute } from './live-routes.ts';
import { summariseMinutes } from './model-metrics.ts';
import { type VisionRuntime, VisionUnavailableError } from './runtime.ts';

export interface VisionRuntimeRoutesOptions {
  runtime: VisionRuntime;
  registry: VisionRegistry;
  history: VisionHistory;
  orders: { get(id: string): { items: Array<{ name: string; quantity: number }> } };
  locationId: string;
  clock: Clock;
}

const doc = { tags: ['vision'], security: [{ bearer: [] }] };
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const CameraId = Type.String({ pattern: CAMERA_ID_PATTERN });
const PERIOD_UNITS_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MAX_PERIOD_MS = 30 * PERIOD_UNITS_MS.d;
const PeriodSchema = Type.String({
  pattern: '^[0-9]{1,6}[mhd]$',
  description: 'e.g. 15m, 1h, 24h, 7d (at most 30d)',
});

function periodMs(period: string, field: string): number {
  const match = /^([0-9]{1,6})([mhd])$/.exec(period)!;
  const ms = Number(match[1]) * PERIOD_UNITS_MS[match[2] as keyof typeof PERIOD_UNITS_MS];
  if (ms < 60_000 || ms > MAX_PERIOD_MS)
    throw new InvalidRequestError('The period must be between 1m and 30d', [
      { field, message: 'must be between 1m and 30d' },
    ]);
  return ms;
}

const ItemCountSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    quantity: Type.Integer({ minimum: 1, maximum: 99 }),
  },
  { additionalProperties: false },
);

const LaneStatusSchema = Type.Object({
  camera_id: Type.String(),
  online: Type.Boolean({ description: 'false while the lane camera is offline: the figures are its last' }),
  queue_length: Type.Integer(),
  estimated_wait_seconds: Type.Integer(),
  cars: Type.Array(
    Type.Object({
      position: Type.Integer({ description: '1 is the car at the pickup window' }),
      wait_seconds: Type.Integer(),
      track_id: Type.Integer(),
      zone: Type.String(),
    }),
  ),
  orders_per_hour: Type.Number(),
  status: Type.Union([Type.Literal('normal'), Type.Literal('busy'), Type.Literal('critical')]),
  counts: Type.Object({ completed: Type.Integer(), pulled_forward: Type.Integer(), balked: Type.Integer() }),
});

const VerificationSchema = Type.Object({
  id: Type.String(),
  order_id: Type.String(),
  camera_id: Type.String(),
  trigger: Type.Union([Type.Literal('order_ready'), Type.Literal('on_demand')]),
  verified: Type.Boolean(),
  detections: Type.Array(
    Type.Object({
      name: Type.String(),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
      matched: Type.Boolean(),
    }),
  ),
  missing_items: Type.Array(ItemCountSchema),
  extra_items: Type.Array(ItemCountSchema),
  unverifiable: Type.Optional(
    Type.Array(ItemCountSchema, { description: 'Ordered items no model class stands for: not checked' }),
  ),
  uncertain: Type.Optional(
    Type.Array(ItemCountSchema, { description: 'Seen under min_confidence: shown, never counted' }),
  ),
  snapshot: Nullable(Type.String({ description: 'Under /v1/vision/snapshots/' })),
  created_at: Type.String({ format: 'date-time' }),
});

const OccupancySchema = Type.Object({
  location_id: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  dining_room: Type.Object({ current: Type.Integer(), capacity: Type.Integer(), utilization: Type.Number() }),
  parking: Type.Object({ occupied: Type.Integer(), total: Type.Integer(), utilization: Type.Number() }),
});

const DetectionSchema = Type.Object({
  id: Type.String(),
  camera_id: Type.String(),
  track_id: Nullable(Type.String()),
  name: Type.String(),
  confidence: Type.Number(),
  box: Type.Array(Type.Number(), { description: '[x1, y1, x2, y2] in inference pixels' }),
  detected_at: Type.String({ format: 'date-time' }),
  snapshot: Nullable(Type.String()),
});

const TrackSchema = Type.Object({
  id: Type.String(),
  camera_id: Type.String(),
  entered_at: Type.String({ format: 'date-time' }),
  left_at: Type.String({ format: 'date-time' }),
  outcome: Type.Union([Type.Literal('served'), Type.Literal('balked'), Type.Literal('lost')]),
  order_id: Nullable(Type.String()),
  pulled_forward: Type.Boolean(),
  times: Type.Record(Type.String(), Nullable(Type.Number()), {
    description: 'Seconds at menu_board, pay_window, pickup_window, pull_forward, and in total',
  }),
  events: Type.Array(Type.Record(Type.String(), Type.Unknown())),
});

const ModelMetricsSchema = Type.Object({
  model_id: Type.String(),
  period: Type.String(),
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  minutes: Type.Integer(),
  frames_read: Type.Integer(),
  frames_inferred: Type.Integer(),
  frames_skipped_by_motion: Type.Integer(),
  frames_dropped: Type.Integer(),
  detections: Type.Integer(),
  camera_fps: Nullable(Type.Number()),
  detection_fps: Nullable(Type.Number()),
  inference_latency_ms: Type.Object({ p50: Nullable(Type.Number()), p99: Nullable(Type.Number()) }),
  cameras: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  live: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  alerts: Type.Array(
    Type.Object({
      camera_id: Type.String(),
      model_id: Type.String(),
      metric: Type.Union([
        Type.Literal('camera_fps'),
        Type.Literal('inference_latency_p99'),
        Type.Literal('detection_accuracy'),
      ]),
      severity: Type.Union([Type.Literal('warning'), Type.Literal('critical')]),
      value: Type.Number(),
      threshold: Type.Number(),
      since: Type.String({ format: 'date-time' }),
    }),
  ),
});

const CalibrationSchema = Type.Object({
  camera_id: Type.String(),
  captured_at: Type.String({ format: 'date-time' }),
  snapshot: Nullable(Type.String()),
  width: Type.Integer(),
  height: Type.Integer(),
  zones: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  lane_ready: Nullable(Type.Boolean({ description: 'For a lane camera: its zones make a lane' })),
  missing_zones: Type.Array(Type.String()),
});

export const VerifyOrderSchema = Type.Object(
  {
    order_id: Type.String({ minLength: 1, maxLength: 64 }),
    camera_id: Type.Optional(CameraId),
    expected_items: Type.Optional(
      Type.Array(ItemCountSchema, {
        minItems: 1,
        maxItems: 100,
        description: 'Left out: the order’s own items (the order must be one of this store’s)',
      }),
    ),
  },
  { additionalProperties: false },
);

function unavailable(error: unknown): never {
  if (error instanceof VisionUnavailableError) throw new ConflictError(error.message, error.code);
  throw error;
}

/** `GET /drive-thru/status`, the same under /api/vision and /v1/vision. */
function driveThruStatusRoute(app: FastifyInstance, runtime: VisionRuntime, description: string) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/drive-thru/status',
    {
      onRequest: app.authenticate(),
      schema: {
        ...doc,
        summary: 'The drive-thru queue now',
        description,
        querystring: Type.Object({ camera_id: Type.Optional(CameraId) }, { additionalProperties: false }),
        response: { 200: Envelope(LaneStatusSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const status = runtime.laneStatus(request.query.camera_id);
      if (!status) throw new NotFoundError('Running drive-thru lane camera', 'NO_LANE_CAMERA');
      return envelope(request.id, status);
    },
  );
}

export async function visionRuntimeApiRoutes(app: FastifyInstance, opts: VisionRuntimeRoutesOptions) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const staff = { onRequest: app.authenticate() };

  driveThruStatusRoute(
    app,
    opts.runtime,
    'The lane camera’s live figures: cars in the lane front first with their waits, the estimated wait for a car joining now, orders per hour, and normal / busy (5 cars or 4 min) / critical (8 cars or 7 min). With several lane cameras, `camera_id` picks one. 404 NO_LANE_CAMERA when none runs.',
  );
  driveThruHistoryRoute(app, opts);

  r.post(
    '/verify-order',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Check an order against what the pickup camera sees now',
        description:
          'Reads three fresh frames of the pickup camera (`camera_id`, or the store’s food or pickup-window camera), counts the items through the menu-to-class mapping and answers `verified`, `detections[]`, `missing_items` and `extra_items`. Stored, and announced on the store’s event feed as vision.order_verified. 409 CAMERA_NOT_RUNNING / NO_PICKUP_CAMERA when there is no picture to check.',
        body: VerifyOrderSchema,
        response: { 200: Envelope(VerificationSchema), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const body = request.body;
      const expected =
        body.expected_items ??
        (() => {
          const order = opts.orders.get(body.order_id);
          return order.items.map(({ name, quantity }) => ({ name, quantity }));
        })();
      const result = await opts.runtime
        .verify({ orderId: body.order_id, cameraId: body.camera_id, expected, trigger: 'on_demand' })
        .catch(unavailable);
      return envelope(request.id, result);
    },
  );

  r.get(
    '/verifications',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'An order’s verifications, newest first',
        querystring: Type.Object(
          { order_id: Type.String({ minLength: 1, maxLength: 64 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(Type.Object({ verifications: Type.Array(VerificationSchema) })),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) =>
      envelope(request.id, { verifications: opts.history.verificationsOf(request.query.order_id) }),
  );

  r.post(
    '/verifications/:verification_id/review',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Say whether the camera got a verification right',
        description:
          'What the kiosk asks when a person dismisses a mismatch (or checks a verified order). A second review of the same verification replaces the first. The share of the last day’s reviews the camera got right is its detection accuracy (once ten are reviewed): under 90% raises a warning, under 80% a critical alert (vision.alert on the event feed, synced to the cloud).',
        params: Type.Object({ verification_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: Type.Object(
          {
            correct: Type.Boolean({
              description: 'true: the camera was right; false: it raised a false alarm or missed one',
            }),
            note: Type.Optional(Type.String({ maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(
            Type.Object({
              verification_id: Type.String(),
              camera_id: Type.String(),
              correct: Type.Boolean(),
              accuracy: Type.Object({
                value: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
                reviewed: Type.Integer(),
                window_hours: Type.Integer(),
              }),
            }),
          ),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const { verification_id } = request.params;
      if (!opts.history.verification(verification_id))
        throw new NotFoundError('Verification', 'VERIFICATION_NOT_FOUND');
      const result = opts.runtime.review(verification_id, request.body, requireAuth(request).userId);
      return envelope(request.id, result);
    },
  );

  r.get(
    '/occupancy/:location_id',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'People in the dining room and cars in the car park now',
        description:
          'From the dining-room and parking cameras: people whose feet are in the dining zone against capacity, parking spaces (zones named space-…) covered by a car. 404 when this is not the store’s location or it has no such camera.',
        params: Type.Object({ location_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Envelope(OccupancySchema), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const record =
        request.params.location_id === opts.locationId
          ? (opts.runtime.occupancy() ?? opts.history.occupancy(opts.locationId))
          : undefined;
      if (!record) throw new NotFoundError('Occupancy', 'OCCUPANCY_NOT_FOUND');
      return envelope(request.id, record);
    },
  );
}

export async function visionRuntimeRoutes(app: FastifyInstance, opts: VisionRuntimeRoutesOptions) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const staff = { onRequest: app.authenticate() };
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };
  const CameraParams = Type.Object({ camera_id: CameraId });
  const knownCamera = (id: string) => opts.registry.cameraStatus(id);

  cameraLiveRoutes(app, opts);

  r.get(
    '/cameras/:camera_id/detections',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'What the camera saw first, newest first',
        description:
          'One detection per object the camera started tracking (not one per frame), with the snapshot taken then, if any.',
        params: CameraParams,
        querystring: Type.Object(
          { limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(Type.Object({ detections: Type.Array(DetectionSchema) })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      knownCamera(request.params.camera_id);
      const detections = opts.history.detections(request.params.camera_id, request.query.limit);
      return envelope(request.id, { detections });
    },
  );

  r.post(
    '/cameras/:camera_id/calibrate',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Take a still to draw zones on, and store the zones at its resolution (managers only)',
        description:
          'Answers the snapshot (under /v1/vision/snapshots/), its size, the zones as stored, and for a lane camera whether they make a lane (menu_board, pay_window and pickup_window at least). 409 CAMERA_NOT_RUNNING when the camera gives no picture.',
        params: CameraParams,
        response: { 200: Envelope(CalibrationSchema), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      knownCamera(request.params.camera_id);
      const result = await opts.runtime.calibrate(request.params.camera_id).catch(unavailable);
      return envelope(request.id, result);
    },
  );

  r.get(
    '/models/:model_id/metrics',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'A model’s figures over a period, per camera, with its alerts',
        description:
          'Summed from each camera’s minutes: frames read, inferred, skipped by motion, dropped; detections; fps; inference latency p50 and p99 (each minute’s percentile, weighted by its inferences). `live` is each camera running the model now; `alerts` are those open (camera_fps under 10 / 5, inference_latency_p99 over 500 / 1000 ms).',
        params: Type.Object({ model_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        querystring: Type.Object({ period: Type.Optional(PeriodSchema) }, { additionalProperties: false }),
        response: { 200: Envelope(ModelMetricsSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const period = request.query.period ?? '24h';
      const to = opts.clock.now();
      const from = new Date(to.getTime() - periodMs(period, 'querystring.period'));
      const { model_id } = request.params;
      const minutes = opts.history.minutesOf(model_id, from.toISOString());
      return envelope(request.id, {
        model_id,
        period,
        from: from.toISOString(),
        to: to.toISOString(),
        ...summariseMinutes(minutes),
        live: opts.runtime.liveMetrics().filter((m) => m.model_id === model_id),
        alerts: opts.runtime.alerts().filter((a) => a.model_id === model_id),
      });
    },
  );

  driveThruStatusRoute(app, opts.runtime, 'The same as GET /api/vision/drive-thru/status.');

  r.get(
    '/drive-thru/tracks',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Cars that went through the lane in the period, latest first',
        description:
          'Each car once it left: when it joined and left, served / balked (left before ordering) / lost (left the view mid-lane), pulled forward, seconds at each point, its events, and the drive-thru order paid while it stood at the pay window.',
        querystring: Type.Object(
          {
            period: Type.Optional(PeriodSchema),
            limit: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(
            Type.Object({
              period: Type.String(),
              from: Type.String({ format: 'date-time' }),
              to: Type.String({ format: 'date-time' }),
              tracks: Type.Array(TrackSchema),
            }),
          ),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const period = request.query.period ?? '1h';
      const to = opts.clock.now();
      const from = new Date(to.getTime() - periodMs(period, 'querystring.period'));
      const tracks = opts.history.tracksSince(from.toISOString(), request.query.limit);
      return envelope(request.id, { period, from: from.toISOString(), to: to.toISOString(), tracks });
    },
  );

  // Not through the type provider: the answer is a file stream, not a JSON schema's shape.
  app.get<{ Params: { '*': string } }>(
    '/snapshots/*',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'A snapshot JPEG (detections, verifications, calibration)',
        params: Type.Object({
          '*': Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+\\.jpg$' }),
        }),
        response: errorResponses(400, 401, 404),
      },
    },
    async (request, reply) => {
      const root = resolve(opts.runtime.snapshotsDir());
      const file = resolve(root, request.params['*']);
      if (!file.startsWith(root + sep)) throw new NotFoundError('Snapshot', 'SNAPSHOT_NOT_FOUND');
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile()) throw new NotFoundError('Snapshot', 'SNAPSHOT_NOT_FOUND');
      return reply
        .type('image/jpeg')
        .header('content-length', info.size)
        .header('cache-control', 'private, max-age=86400, immutable')
        .send(createReadStream(file));
    },
  );
}

export type VerifyOrderBody = Static<typeof VerifyOrderSchema>;
