import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../../shared/http/envelope.ts';
import { ADMIN_ROLES, type ModelAccess, READER_ROLES } from './access.ts';
import { notOctetStream } from './errors.ts';
import { parseRange } from './files.ts';
import * as schemas from './schemas.ts';
import type { VisionModelService } from './service.ts';

const doc = { tags: ['vision models'], security: [{ bearer: [] }] };

const isStream = (body: unknown): body is AsyncIterable<Uint8Array> =>
  typeof (body as AsyncIterable<Uint8Array> | undefined)?.[Symbol.asyncIterator] === 'function';

/** The upload's bytes as they arrive; no body at all is an empty upload, any other type refused. */
function uploadBody(request: FastifyRequest): AsyncIterable<Uint8Array> {
  if (isStream(request.body)) return request.body;
  const type = request.headers['content-type'];
  if (type && !type.startsWith('application/octet-stream')) throw notOctetStream();
  return (async function* () {})();
}

const declaredLength = (request: FastifyRequest) => {
  const raw = request.headers['content-length'];
  return raw === undefined ? undefined : Number(raw);
};

/** The bytes, whole or one range of them; ETag is the digest, so a cached copy is answered 304. */
async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: Awaited<ReturnType<VisionModelService['openFile']>>,
  name: string,
) {
  const etag = `"${file.sha256}"`;
  reply.headers({
    etag,
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
    'content-disposition': `attachment; filename="${name}.onnx"`,
  });
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  const ifRange = request.headers['if-range'];
  const range =
    ifRange === undefined || ifRange === etag ? parseRange(request.headers.range, file.size) : undefined;
  const { start, end } = range ?? { start: 0, end: file.size - 1 };
  if (range) reply.code(206).header('content-range', `bytes ${start}-${end}/${file.size}`);
  reply.header('content-length', end - start + 1);
  // An empty stream: Fastify keeps the length given above for a HEAD answered with a stream.
  if (request.method === 'HEAD') return reply.send(Readable.from([]));
  return reply.send(file.read({ start, end }));
}

/** /v1/vision/models: versions and their bytes. Administrators write; managers look. */
export async function modelRoutes(
  app: FastifyInstance,
  options: { models: VisionModelService; access: ModelAccess; maxBytes: number },
) {
  const { models, access } = options;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const admins = { onRequest: app.authenticate(ADMIN_ROLES) };
  const readers = { onRequest: app.authenticate(READER_ROLES) };
  const tenant = access.tenantOf;
  const Model = Envelope(schemas.ModelSchema);
  const Version = Envelope(schemas.VersionDetailSchema);

  // The bytes reach the upload's handler as the request stream itself, never buffered whole.
  app.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));

  r.get(
    '/models',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'The tenant’s detection models and their versions',
        response: { 200: Envelope(Type.Array(schemas.ModelSchema)), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, await models.listModels(tenant(request))),
  );

  r.get(
    '/models/:model_id',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'One model and its versions',
        params: schemas.ModelParamsSchema,
        response: { 200: Model, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await models.getModel(tenant(request), request.params.model_id)),
  );

  r.post(
    '/models/:model_id/versions',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Register a version by its manifest; its file is uploaded next',
        description:
          'The body is the model’s manifest (the JSON beside its .onnx); its `name` must be the model of the path and its `sha256` is what the upload must match. The model is created with its first version. The same manifest again answers 200 with the version; another manifest under an existing version is 409 MODEL_VERSION_EXISTS.',
        params: schemas.ModelParamsSchema,
        body: schemas.ModelManifestSchema,
        response: { 200: Version, 201: Version, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const { created, version } = await models.registerVersion(
        tenant(request),
        request.params.model_id,
        request.body,
      );
      reply.code(created ? 201 : 200);
      return envelope(request.id, version);
    },
  );

  r.get(
    '/models/:model_id/versions/:version',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'One version with its manifest',
        params: schemas.VersionParamsSchema,
        response: { 200: Version, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await models.getVersion(tenant(request), request.params.model_id, request.params.version),
      ),
  );

  r.put(
    '/models/:model_id/versions/:version/file',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Upload the version’s .onnx (application/octet-stream)',
        description: `Streamed and hashed as it arrives; kept only when its SHA-256 is the manifest’s (400 MODEL_DIGEST_MISMATCH otherwise). At most ${Math.floor(options.maxBytes / 1048576)} MB (413 MODEL_TOO_LARGE). A version that has its file keeps it: uploading the same bytes again changes nothing.`,
        consumes: ['application/octet-stream'],
        params: schemas.VersionParamsSchema,
        body: Type.Unsafe<unknown>({ description: 'the .onnx file’s bytes' }),
        response: { 200: Version, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      const { model_id, version } = request.params;
      const body = uploadBody(request);
      return envelope(
        request.id,
        await models.uploadFile(tenant(request), model_id, version, body, declaredLength(request)),
      );
    },
  );

  r.post(
    '/models/:model_id/versions/:version/deploy',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Make this the version a sync installs when it names none',
        params: schemas.VersionParamsSchema,
        response: { 200: Model, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await models.deploy(tenant(request), request.params.model_id, request.params.version),
      ),
  );

  r.get(
    '/models/:model_id/versions/:version/file',
    {
      onRequest: access.adminOrAppliance,
      schema: {
        tags: doc.tags,
        security: [{ bearer: [] }, { appliance: [] }],
        summary: 'Download the version’s .onnx',
        description:
          'For the tenant’s administrators (bearer token) and its appliances (`Authorization: Appliance sak_…`). ETag is the SHA-256; `Range: bytes=…` answers 206 with that part, so a cut-off download resumes.',
        produces: ['application/octet-stream'],
        params: schemas.VersionParamsSchema,
        response: {
          200: Type.Unsafe<unknown>({ description: 'the .onnx bytes' }),
          206: Type.Unsafe<unknown>({ description: 'the requested range of them' }),
          304: Type.Null({ description: 'the copy you hold (If-None-Match) is current' }),
          ...errorResponses(400, 401, 403, 404, 409, 416),
        },
      },
    },
    async (request, reply) => {
      const { model_id, version } = request.params;
      const file = await models.openFile(tenant(request), model_id, version);
      return sendFile(request, reply, file, `${model_id}-${version}`);
    },
  );
}
