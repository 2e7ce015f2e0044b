/**
 * What the operator screens show of the cameras: each camera's state and figures, a camera's
 * picture now with the model's boxes on it, and the drive-thru over the shift. Everyone on shift
 * reads them.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../../shared/http/envelope.ts';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../../shared/http/errors.ts';
import { Counter } from '../../../shared/http/numbers.ts';
import { CAMERA_TYPES } from '../registry/index.ts';
import { CAMERA_ID_PATTERN } from '../settings/index.ts';
import type { VisionRuntimeRoutesOptions } from './routes.ts';
import { VisionUnavailableError } from './runtime.ts';

const doc = { tags: ['vision'], security: [{ bearer: [] }] };
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });
const CameraParams = Type.Object({ camera_id: Type.String({ pattern: CAMERA_ID_PATTERN }) });
const MAX_HISTORY_MS = 7 * 86_400_000;

const CameraStatusSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.Union(CAMERA_TYPES.map((type) => Type.Literal(type))),
  enabled: Type.Boolean(),
  state: Type.Union([
    Type.Literal('running'),
    Type.Literal('starting'),
    Type.Literal('stopped'),
    Type.Literal('error'),
  ]),
  reason: Nullable(Type.String({ description: 'Why it is stopped or in error; null otherwise' })),
  fps: Type.Number({ description: 'Frames read a second now' }),
  inference_latency_ms: Type.Object(
    { p50: Nullable(Type.Number()), p99: Nullable(Type.Number()) },
    { description: 'The model’s time per frame over the last minute' },
  ),
  frames_dropped_last_minute: Type.Integer(),
  last_frame_at: Nullable(Timestamp),
});

const LiveFrameSchema = Type.Object({
  camera_id: Type.String(),
  seq: Type.Integer({ description: 'The frame’s number, as frame.jpg’s X-Frame-Seq header' }),
  frame_at: Timestamp,
  detections_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'The frame the model last looked at (a still scene is not looked at again)',
    }),
  ),
  width: Type.Integer({ description: 'The frame’s size in pixels (the inference resolution)' }),
  height: Type.Integer(),
  detections: Type.Array(
    Type.Object({
      class: Type.String(),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
      box: Type.Array(Type.Number({ minimum: 0, maximum: 1 }), {
        minItems: 4,
        maxItems: 4,
        description: '[x1, y1, x2, y2] as shares of the frame’s width and height',
      }),
      track_id: Nullable(Type.Integer({ description: 'As the drive-thru status’s cars[].track_id' })),
    }),
  ),
});

const LaneHistorySchema = Type.Object({
  since: Timestamp,
  until: Timestamp,
  bucket_minutes: Type.Integer(),
  buckets: Type.Array(
    Type.Object({
      at: Type.String({ format: 'date-time', description: 'The bucket’s start' }),
      queue_length_avg: Type.Number({ description: 'Cars in the lane, averaged over the bucket’s time' }),
      queue_length_max: Type.Integer(),
      wait_seconds_avg: Nullable(
        Type.Number({ description: 'Joining the queue to leaving it, of the cars served in the bucket' }),
      ),
      cars_served: Type.Integer(),
    }),
  ),
});

function unavailable(error: unknown): never {
  if (error instanceof VisionUnavailableError) throw new ConflictError(error.message, error.code);
  throw error;
}

/** A runtime call answered at once, its "no picture" as a 409. */
function orConflict<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    return unavailable(error);
  }
}

/** `since` defaults to the start of the business day `until` (default now) falls in. */
function historyRange(
  query: { since?: string | undefined; until?: string | undefined },
  now: Date,
  shiftStart: (at: Date) => Date,
) {
  const until = query.until === undefined ? now : new Date(query.until);
  const since = query.since === undefined ? shiftStart(new Date(until.getTime() - 1)) : new Date(query.since);
  if (since.getTime() >= until.getTime())
    throw new InvalidRequestError('since must be before until', [
      { field: 'querystring.since', message: 'must be before until' },
    ]);
  if (until.getTime() - since.getTime() > MAX_HISTORY_MS)
    throw new InvalidRequestError('The range must be at most 7 days', [
      { field: 'querystring.until', message: 'must be at most 7 days after since' },
    ]);
  return { since, until };
}

/** Under /v1/vision: the cameras' status, and a camera's picture and boxes now. */
export function cameraLiveRoutes(app: FastifyInstance, opts: VisionRuntimeRoutesOptions) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const staff = { onRequest: app.authenticate() };
  const knownCamera = (id: string) => opts.registry.cameraStatus(id);

  r.get(
    '/cameras/status',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Every camera’s pipeline state and live figures',
        description:
          'Each registered camera: running, starting, stopped (disabled, or the pipelines not running) or error with its reason (the capture’s last failure, or a model that cannot run); fps now; inference latency p50 and p99 and frames dropped over the last minute; its last frame’s time. Kept in memory: cheap to ask every second.',
        response: {
          200: Envelope(Type.Object({ cameras: Type.Array(CameraStatusSchema) })),
          ...errorResponses(401),
        },
      },
    },
    async (request) => envelope(request.id, { cameras: opts.runtime.cameraStatuses() }),
  );

  r.get(
    '/cameras/:camera_id/frame.jpg',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'The camera’s picture now, as a JPEG',
        description:
          'The next frame the camera delivers (within 2 s), scaled to `width` (64–1920, default 480) keeping its aspect; `Cache-Control: no-store`. X-Frame-Seq and X-Frame-At name the frame: GET …/live?seq= answers its boxes. 404 CAMERA_NOT_FOUND; 409 CAMERA_NOT_RUNNING (disabled, stopped or failed) or CAMERA_NO_FRAME (starting, offline, or no frame in 2 s).',
        params: CameraParams,
        querystring: Type.Object(
          { width: Type.Integer({ minimum: 64, maximum: 1920, default: 480 }) },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'The frame as a JPEG',
            content: { 'image/jpeg': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) } },
          },
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request, reply) => {
      knownCamera(request.params.camera_id);
      const still = await opts.runtime
        .frameJpeg(request.params.camera_id, request.query.width)
        .catch(unavailable);
      return reply
        .type('image/jpeg')
        .header('cache-control', 'no-store')
        .header('x-frame-seq', String(still.seq))
        .header('x-frame-at', still.frameAt.toISOString())
        .send(still.jpeg);
    },
  );

  r.get(
    '/cameras/:camera_id/live',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'The model’s boxes on a frame of the camera, to draw over its picture',
        description:
          'For frame `seq` (frame.jpg’s X-Frame-Seq; one of the last 32 frames), or the newest: the frame’s size and each object the model reported with its class, confidence, box normalised to 0..1 and tracker id. Unlike GET …/detections (first sightings, stored) this is the picture now. 404 CAMERA_NOT_FOUND, or FRAME_NOT_FOUND for a `seq` no longer held; 409 CAMERA_NOT_RUNNING or CAMERA_NO_FRAME.',
        params: CameraParams,
        querystring: Type.Object(
          { seq: Type.Optional(Counter({ minimum: 1 })) },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(LiveFrameSchema), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      knownCamera(request.params.camera_id);
      const live = orConflict(() => opts.runtime.liveFrame(request.params.camera_id, request.query.seq));
      if (!live) throw new NotFoundError('Frame', 'FRAME_NOT_FOUND');
      return envelope(request.id, live);
    },
  );
}

/** Under /api/vision, beside the drive-thru's status. */
export function driveThruHistoryRoute(app: FastifyInstance, opts: VisionRuntimeRoutesOptions) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/drive-thru/history',
    {
      onRequest: app.authenticate(),
      schema: {
        ...doc,
        summary: 'The drive-thru’s queue and waits over the shift, in buckets',
        description:
          'From each car’s visit (and the cars in the lane now): per bucket of `bucket_minutes` (1–60, default 5) from `since`, cars in the lane averaged over time and at most at once, cars served and their average wait. `since` defaults to the start of the business day `until` (default now) is in, in the store’s time zone; at most 7 days. `camera_id` keeps to one lane camera (default all). 400 when since is not before until or the range is longer.',
        querystring: Type.Object(
          {
            since: Type.Optional(Timestamp),
            until: Type.Optional(Timestamp),
            bucket_minutes: Type.Integer({ minimum: 1, maximum: 60, default: 5 }),
            camera_id: Type.Optional(CameraParams.properties.camera_id),
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(LaneHistorySchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { bucket_minutes: bucketMinutes, camera_id: cameraId } = request.query;
      if (cameraId !== undefined) opts.registry.cameraStatus(cameraId);
      const range = historyRange(request.query, opts.clock.now(), opts.runtime.shiftStart);
      return envelope(request.id, opts.runtime.laneHistory({ ...range, bucketMinutes, cameraId }));
    },
  );
}
